import type { RecitationError } from "../../api";
import { useLocale, useT, type MessageKey, type TFunction } from "../../i18n";
import { isUncertain, markText, type Segment } from "../../practice/marking";

const TYPE_KEYS: Record<string, MessageKey> = {
  omission: "error.omission",
  insertion: "error.insertion",
  substitution: "error.substitution",
  order: "error.order",
};

/** The short label of an error in the UI language: the checker's own, else a generic one by type. */
export function errorLabel(t: TFunction, locale: string, e: RecitationError): string {
  const own = locale === "en" ? e.label_en : e.label_zh;
  if (own && own.trim()) return own;
  return t(TYPE_KEYS[e.type] ?? "error.other");
}

function Mark({ seg, line, mode }: { seg: Exclude<Segment, { kind: "text" }>; line: number; mode: string }) {
  const t = useT();
  const { locale } = useLocale();
  const e = seg.error;
  if (isUncertain(e)) {
    const text = seg.kind === "mark" ? seg.text : e.actual;
    return (
      <span className="mark mark-uncertain" data-testid="uncertain-mark" data-line={line} data-type={e.type}>
        <span className="mark-text">{text}</span>
        <span className="mark-label">{t("result.sayAgain")}</span>
      </span>
    );
  }
  const label = errorLabel(t, locale, e);
  if (seg.kind === "insert") {
    return (
      <span className={`mark mark-${e.type}`} data-testid="error-mark" data-type={e.type} data-line={line}>
        <span className="mark-text mark-extra">
          {e.type === "insertion" ? `+${e.actual}` : e.expected || e.actual || "…"}
        </span>
        <span className="mark-label">{label}</span>
      </span>
    );
  }
  return (
    <span className={`mark mark-${e.type}`} data-testid="error-mark" data-type={e.type} data-line={line}>
      <span className="mark-text">{seg.text}</span>
      {e.type === "substitution" && e.actual ? (
        <span className="mark-label">
          {label}
          <span className="mark-heard">{t(mode === "text" ? "result.wrote" : "result.heard", { actual: e.actual })}</span>
        </span>
      ) : (
        <span className="mark-label">{label}</span>
      )}
    </span>
  );
}

/** The reference text line by line, each error marked where it happened. */
export function MarkedReference({
  lines,
  errors,
  lang,
  mode = "voice",
}: {
  lines: string[];
  errors: RecitationError[];
  lang: string;
  mode?: string;
}) {
  const t = useT();
  const marked = markText(lines, errors);
  return (
    <div className="marked" lang={lang === "en" ? "en" : "zh-CN"}>
      <ol className="marked-lines">
        {marked.lines.map((segs, i) => (
          <li key={i} className="marked-line" data-line={i + 1}>
            {segs.map((s, j) =>
              s.kind === "text" ? <span key={j}>{s.text}</span> : <Mark key={j} seg={s} line={i + 1} mode={mode} />,
            )}
          </li>
        ))}
      </ol>
      {marked.unplaced.length > 0 && (
        <div className="marked-extra">
          <span className="muted">{t("result.otherErrors")}</span>
          {marked.unplaced.map((p) => (
            <Mark key={p.index} seg={{ kind: "insert", error: p.error, index: p.index }} line={p.error.line} mode={mode} />
          ))}
        </div>
      )}
    </div>
  );
}
