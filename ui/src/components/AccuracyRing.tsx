/** An SVG ring filled to the accuracy; the number in the middle is `data-testid="accuracy"` (integer percent). */
export function AccuracyRing({ accuracy, passed, label }: { accuracy: number; passed: boolean; label: string }) {
  const pct = Math.min(100, Math.max(0, Math.round(Number(accuracy) || 0)));
  const r = 52;
  const c = 2 * Math.PI * r;
  return (
    <div className={passed ? "ring ring-passed" : "ring ring-not-passed"} role="img" aria-label={label}>
      <svg viewBox="0 0 120 120" width="140" height="140" aria-hidden="true">
        <circle className="ring-track" cx="60" cy="60" r={r} fill="none" strokeWidth="12" />
        <circle
          className="ring-value"
          cx="60"
          cy="60"
          r={r}
          fill="none"
          strokeWidth="12"
          strokeLinecap="round"
          strokeDasharray={`${(c * pct) / 100} ${c}`}
          transform="rotate(-90 60 60)"
        />
      </svg>
      <span className="ring-number" aria-hidden="true">
        <span data-testid="accuracy">{pct}</span>
        <span className="ring-unit">%</span>
      </span>
    </div>
  );
}
