// The generated product catalogue of the import benchmarks: product number i is the same whatever
// the run, with a title word no other product has.
import { createHash } from 'node:crypto';
import { Rng } from './rng.js';

const BRANDS = ['Nordkap', 'Alpenglow', 'Velora', 'Brightwater', 'Kestrel', 'Ostara', 'Lumen & Co', 'Tidewell', 'Granite Peak', 'Sorrel'];
const NOUNS = ['Jacket', 'Backpack', 'Lamp', 'Kettle', 'Headphones', 'Desk Chair', 'Running Shoe', 'Tent', 'Blender', 'Watch', 'Duvet', 'Drill'];
const ADJECTIVES = ['Lightweight', 'Classic', 'Compact', 'Pro', 'Ultra', 'Everyday', 'Trail', 'Urban', 'Premium', 'Eco'];
const CATEGORIES = ['Outdoor > Jackets', 'Outdoor > Tents', 'Home > Lighting', 'Home > Kitchen', 'Electronics > Audio', 'Office > Furniture', 'Sports > Running', 'Home > Bedding', 'Tools > Power Tools', 'Accessories > Watches'];
const COLORS = ['black', 'navy', 'forest green', 'sand', 'graphite', 'red', 'white', 'ochre'];
const MATERIALS = ['recycled polyester', 'aluminium', 'oak', 'stainless steel', 'organic cotton', 'ABS plastic', 'merino wool'];
const PHRASES = [
  'built for daily use', 'tested in harsh conditions', 'with a two-year warranty', 'easy to clean', 'designed in Europe',
  'made from durable materials', 'a customer favourite', 'with a low-energy design', 'packed in plastic-free packaging', 'ready to use out of the box',
];

/** The word of product `i`'s title that no other product has. */
const titleToken = (i: number) => `${String.fromCharCode(65 + (i % 26))}${i}`;

/** Product number `i` of a catalogue; the same `i` gives the same texts whatever the prefix of its external_id. */
export function product(prefix: string, i: number): Record<string, unknown> {
  const rng = new Rng(i * 7919 + 17);
  const r = () => rng.next();
  const pick = <T>(list: readonly T[]) => rng.pick(list);
  const brand = pick(BRANDS);
  const noun = pick(NOUNS);
  const title = `${brand} ${pick(ADJECTIVES)} ${noun} ${titleToken(i)}`;
  const color = pick(COLORS);
  const material = pick(MATERIALS);
  let description = `The ${title} in ${color} is ${pick(PHRASES)} and ${pick(PHRASES)}. Made of ${material}, it is ${pick(PHRASES)}.`;
  while (description.length < 200) description += ` It is ${pick(PHRASES)}.`;
  const price = 5 + Math.floor(r() * 49_500) / 100;
  const item: Record<string, unknown> = {
    external_id: `${prefix}-${i}`,
    title,
    description: description.slice(0, 220),
    brand,
    category: pick(CATEGORIES),
    price_current: price.toFixed(2),
    price_msrp: (price * 1.2).toFixed(2),
    currency: 'EUR',
    availability: r() < 0.9 ? 'in_stock' : 'out_of_stock',
    attributes: { color, material, size: pick(['XS', 'S', 'M', 'L', 'XL', 'one size']), weight_g: 100 + Math.floor(r() * 5000), model: `${noun.slice(0, 3).toUpperCase()}-${i}` },
    properties: { warranty_years: 1 + Math.floor(r() * 3), origin: pick(['DE', 'IT', 'PT', 'CN', 'VN', 'US']), care: pick(['machine wash 30°C', 'wipe clean', 'do not wash']), season: pick(['all year', 'summer', 'winter']), eco_label: r() < 0.3 },
    language: 'en',
  };
  item.sync_hash = createHash('sha256').update(JSON.stringify(item)).digest('hex');
  return item;
}

/** NDJSON bulk bodies of products 0..count-1 (external_ids `<prefix>-<i>`), `perRequest` a body. */
export function bulkBodies(prefix: string, count: number, perRequest: number): Buffer[] {
  const bodies: Buffer[] = [];
  for (let start = 0; start < count; start += perRequest) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(count, start + perRequest); i++) lines.push(JSON.stringify(product(prefix, i)));
    bodies.push(Buffer.from(lines.join('\n') + '\n'));
  }
  return bodies;
}
