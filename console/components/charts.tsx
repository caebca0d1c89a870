// Charts drawn as inline SVG (no library; the page's CSP allows no inline style, so colours come
// from the style sheet by class). A chart is an image named by its title (role="img",
// aria-label); each bar is a group whose <title> says its figures, which browsers show on hover.
import type { ComponentChildren } from 'preact';

export interface ChartSeries {
  /** Names the colour: the bars' rects get the class `series-<key>`. */
  key: string;
  label: string;
}

export interface ChartBar {
  /** Under the bar (every `labelEvery`-th bar's; an empty one is left out). */
  label: string;
  /** One value a series, stacked from the bottom in the series' order. */
  values: number[];
  /** The bar's <title>: its figures in words. */
  title: string;
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 44;
const BOTTOM = 26;
const TOP = 10;

/** A round number at or above `n` (1, 2 or 5 times a power of ten) for the top of the scale. */
export function niceCeiling(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= n) ?? 10 * power;
}

/** `labelEvery`: which bars are labelled (default: about a dozen labels in all). */
export function BarChart({ title, series, bars, labelEvery = Math.ceil(bars.length / 12), children }: {
  title: string; series: ChartSeries[]; bars: ChartBar[]; labelEvery?: number; children?: ComponentChildren;
}) {
  const top = niceCeiling(Math.max(0, ...bars.map((b) => b.values.reduce((a, v) => a + v, 0))));
  const plotWidth = WIDTH - LEFT - 4;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, bars.length);
  const barWidth = Math.max(1, slot * 0.72);
  const y = (v: number) => TOP + plotHeight - (v / top) * plotHeight;
  // Whole numbers only: the quarters and the half of the scale where they are.
  const ticks = [0, ...[top / 4, top / 2, (3 * top) / 4].filter(Number.isInteger), top];

  return (
    <figure class="chart">
      <svg class="bar-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
        <title>{title}</title>
        <g class="axis" aria-hidden="true">
          {ticks.map((t) => (
            <g key={t}>
              <line class="grid" x1={LEFT} x2={WIDTH - 4} y1={y(t)} y2={y(t)} />
              <text class="tick" x={LEFT - 6} y={y(t) + 4} text-anchor="end">{t.toLocaleString()}</text>
            </g>
          ))}
        </g>
        {bars.map((bar, i) => {
          const x = LEFT + i * slot + (slot - barWidth) / 2;
          let base = 0;
          return (
            <g key={bar.label + i} class="bar" data-label={bar.label}>
              <title>{bar.title}</title>
              {/* The whole slot answers the hover, however short the bar. */}
              <rect class="hover" x={LEFT + i * slot} y={TOP} width={slot} height={plotHeight} />
              {bar.values.map((v, s) => {
                const from = base;
                base += v;
                return v > 0 ? <rect key={s} class={`series-${series[s]?.key ?? s}`} x={x} y={y(base)} width={barWidth} height={y(from) - y(base)} /> : null;
              })}
              {i % Math.max(1, labelEvery) === 0 && bar.label ? <text class="label" x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle" aria-hidden="true">{bar.label}</text> : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {series.map((s) => <span key={s.key} class="key"><span class={`swatch series-${s.key}`} aria-hidden="true" />{s.label}</span>)}
        {children}
      </figcaption>
    </figure>
  );
}
