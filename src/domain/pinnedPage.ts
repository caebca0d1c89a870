// A page of a search with pinned products: each pin at its position (1 the first hit) of the whole
// list, the engine's hits (which leave the pinned products out) in the other places, and pins past
// the end of those hits right after them.
import type { Hit } from '../search/engine.js';

export type PlacedHit = Hit & { pinned?: true };

export interface Pin {
  productId: string;
  position: number;
}

const pinnedHit = (pin: Pin): PlacedHit => ({ id: pin.productId, score: 0, ranks: { keyword: null, semantic: null }, pinned: true });

/** The indices of the pins in the whole list, given how many hits the engine has. */
function placed(pins: readonly Pin[], organicTotal: number): number[] {
  let previous = -1;
  return pins.map((pin, k) => {
    // Two pins at one position (of two rules): the second after the first.
    previous = Math.min(Math.max(previous + 1, pin.position - 1), organicTotal + k);
    return previous;
  });
}

/**
 * Where the engine's page of hits starts for a page of the whole list at `offset`: the pins placed
 * before it take places. Pins placed past the end of the hits only move when no hit is on the page.
 */
export const organicOffset = (pins: readonly Pin[], offset: number): number => offset - placed(pins, Infinity).filter((i) => i < offset).length;

/** The page [offset, offset + limit) of the whole list, from the engine's hits starting at organicOffset. */
export function pinnedPage(organic: readonly Hit[], organicTotal: number, pins: readonly Pin[], offset: number, limit: number): { hits: PlacedHit[]; total: number } {
  const indices = placed(pins, organicTotal);
  const pinAt = new Map(indices.map((index, k) => [index, pins[k]]));
  const from = organicOffset(pins, offset);
  const hits: PlacedHit[] = [];
  // The engine hit the page goes on with (its index among all the engine's hits).
  let next = offset - indices.filter((i) => i < offset).length;
  for (let index = offset; index < offset + limit; index++) {
    const pin = pinAt.get(index);
    if (pin) {
      hits.push(pinnedHit(pin));
      continue;
    }
    const hit = next < organicTotal ? organic[next - from] : undefined;
    if (!hit) {
      // Fewer hits than the engine counted (a product deleted meanwhile): the later pins follow at once.
      const later = indices.flatMap((i, k) => (i > index ? [pins[k]] : []));
      for (const p of later.slice(0, offset + limit - index)) hits.push(pinnedHit(p));
      break;
    }
    hits.push(hit);
    next++;
  }
  return { hits, total: organicTotal + pins.length };
}
