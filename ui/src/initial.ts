const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * The character shown in a profile's round avatar. Chinese names often start
 * with 小 or a shared family name, so use the last Chinese character
 * (小明 → 明, 妈妈 → 妈); otherwise the first letter (lily → L).
 */
export function avatarInitial(name: string): string {
  const chars = Array.from(name.trim());
  if (chars.length === 0) return "?";
  const cjk = chars.filter((c) => CJK.test(c));
  if (cjk.length > 0) return cjk[cjk.length - 1];
  return chars[0].toUpperCase();
}
