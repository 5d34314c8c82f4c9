/**
 * What the parent area's list screens share: the records a screen shows,
 * read again after each change, and a change run through the core whose
 * failure is said in plain words (what was typed stays).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { errorText } from "../../errors";

/**
 * The records `load` reads (null while loading; not read while `key` is
 * empty, e.g. no child chosen yet), read again when `key` changes and after
 * each `change`. `onLoadError` hears why they could not be read;
 * `setError` shows a change's failure (and is cleared before each change).
 */
export function useRecords<T>(
  key: string,
  load: (key: string) => Promise<T[]>,
  onLoadError: (message: string) => void,
  setError: (message: string | null) => void,
) {
  const [records, setRecords] = useState<T[] | null>(null);
  const [changed, setChanged] = useState(0);
  const hooks = useRef({ load, onLoadError });
  hooks.current = { load, onLoadError };

  useEffect(() => {
    if (!key) return;
    let stale = false;
    (async () => {
      try {
        const list = await hooks.current.load(key);
        if (!stale) setRecords(list ?? []);
      } catch (e) {
        if (!stale) hooks.current.onLoadError(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, [key, changed]);

  /** Runs `work`, then reads the records again; resolves true when it went through. */
  const change = useCallback(
    async (work: () => Promise<unknown>) => {
      setError(null);
      try {
        await work();
        setChanged((n) => n + 1);
        return true;
      } catch (e) {
        setError(errorText(e));
        return false;
      }
    },
    [setError],
  );

  return { records, setRecords, change };
}
