/**
 * A captioned figure whose chart (recharts, drawn at a fixed width) takes
 * the figure's own width, measured and kept current: the report's charts
 * and the Ask tab's answer chart.
 */
import { useEffect, useRef, useState, type ReactNode } from "react";

/** The width of an element, kept current with ResizeObserver where there is one. */
function useWidth(fallback = 480) {
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const w = el.clientWidth;
      if (w > 0) setWidth(w);
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return { ref, width };
}

/** A captioned figure whose chart is drawn at the figure's own width. */
export function ChartFigure({ caption, children }: { caption: string; children: (width: number) => ReactNode }) {
  const { ref, width } = useWidth();
  return (
    <figure className="chart" ref={ref}>
      <figcaption className="field-label">{caption}</figcaption>
      {children(Math.max(240, width))}
    </figure>
  );
}
