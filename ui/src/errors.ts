/**
 * Turn whatever a rejected promise carried into text we can show.
 *
 * The backend rejects every command with a plain-language string that is meant
 * to be shown as-is; anything else (an `Error` from the JS side, say) is
 * reduced to its message.
 */
export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
