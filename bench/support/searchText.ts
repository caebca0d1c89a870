// Generated text for the search benchmarks: made-up words, German and English product texts (the
// Catalogue), and storefront-like queries with typos and prefixes. Deterministic for a seed.
import type { ProductInput } from '../../src/domain/products.js';
import type { Rng } from './rng.js';

// ---- words -----------------------------------------------------------------------------------

/** Picks list items with zipf weights (rank r has weight 1/r^s): a few frequent, a long tail. */
export type Zipf<T> = (rng: Rng) => T;

export function zipf<T>(items: readonly T[], s = 1): Zipf<T> {
  const cumulative = new Float64Array(items.length);
  let sum = 0;
  for (let r = 0; r < items.length; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, s);
  return (rng) => {
    const u = rng.next() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return items[lo];
  };
}

/** Pronounceable made-up words: a catalogue's long tail (model names, rare terms). */
function pseudoWords(rng: Rng, count: number, syllables: readonly string[]): string[] {
  const out = new Set<string>();
  while (out.size < count) {
    const n = 2 + rng.int(3);
    let word = '';
    for (let i = 0; i < n; i++) word += rng.pick(syllables);
    out.add(word);
  }
  return [...out];
}

const SYLLABLES_EN = ['ka', 'lo', 'ri', 'ven', 'tor', 'mi', 'sa', 'dex', 'quin', 'bel', 'ar', 'on', 'ly', 'tra', 'po', 'nix', 'ser', 'ga', 'lum', 'fi', 'cor', 'da', 'wen', 'ex', 'zu'];
const SYLLABLES_DE = ['ber', 'gen', 'lich', 'stein', 'wald', 'hof', 'ke', 'rau', 'sch', 'mü', 'ta', 'ler', 'brü', 'ck', 'ei', 'ne', 'zu', 'fel', 'dorf', 'hei', 'ß', 'ma', 'ö', 'tz', 'un'];

// ---- products --------------------------------------------------------------------------------

/** [English, German] pairs. */
const CATEGORIES: [string, string][] = [
  ['Running Shoes', 'Laufschuhe'], ['Hiking Boots', 'Wanderschuhe'], ['Rain Jackets', 'Regenjacken'], ['Backpacks', 'Rucksäcke'],
  ['Headphones', 'Kopfhörer'], ['Coffee Makers', 'Kaffeemaschinen'], ['Kitchen Knives', 'Küchenmesser'], ['Frying Pans', 'Bratpfannen'],
  ['Office Chairs', 'Bürostühle'], ['Desk Lamps', 'Schreibtischlampen'], ['Bed Linen', 'Bettwäsche'], ['Bath Towels', 'Handtücher'],
  ['Water Bottles', 'Trinkflaschen'], ['Sleeping Bags', 'Schlafsäcke'], ['Tents', 'Zelte'], ['Bicycle Helmets', 'Fahrradhelme'],
  ['Footballs', 'Fußbälle'], ['Yoga Mats', 'Yogamatten'], ['Smart Watches', 'Smartwatches'], ['Phone Cases', 'Handyhüllen'],
  ['Power Banks', 'Powerbanks'], ['Bluetooth Speakers', 'Bluetooth-Lautsprecher'], ['Gaming Mice', 'Gaming-Mäuse'], ['Keyboards', 'Tastaturen'],
  ['Monitors', 'Monitore'], ['Vacuum Cleaners', 'Staubsauger'], ['Garden Hoses', 'Gartenschläuche'], ['Lawn Mowers', 'Rasenmäher'],
  ['Cordless Drills', 'Akkuschrauber'], ['Toolboxes', 'Werkzeugkoffer'], ['Winter Gloves', 'Winterhandschuhe'], ['Wool Socks', 'Wollsocken'],
  ['Sunglasses', 'Sonnenbrillen'], ['Wallets', 'Geldbörsen'], ['Umbrellas', 'Regenschirme'], ['Teapots', 'Teekannen'],
  ['Baby Strollers', 'Kinderwagen'], ['Dog Beds', 'Hundebetten'], ['Board Games', 'Brettspiele'], ['Wall Clocks', 'Wanduhren'],
];
const NOUNS: [string, string][] = [
  ['shoe', 'Schuh'], ['boot', 'Stiefel'], ['jacket', 'Jacke'], ['backpack', 'Rucksack'], ['headphones', 'Kopfhörer'], ['coffee maker', 'Kaffeemaschine'],
  ['knife', 'Messer'], ['pan', 'Pfanne'], ['chair', 'Stuhl'], ['lamp', 'Lampe'], ['duvet cover', 'Bettbezug'], ['towel', 'Handtuch'],
  ['bottle', 'Flasche'], ['sleeping bag', 'Schlafsack'], ['tent', 'Zelt'], ['helmet', 'Helm'], ['ball', 'Ball'], ['mat', 'Matte'],
  ['watch', 'Uhr'], ['case', 'Hülle'], ['power bank', 'Powerbank'], ['speaker', 'Lautsprecher'], ['mouse', 'Maus'], ['keyboard', 'Tastatur'],
  ['monitor', 'Monitor'], ['vacuum cleaner', 'Staubsauger'], ['hose', 'Schlauch'], ['mower', 'Mäher'], ['drill', 'Bohrschrauber'], ['toolbox', 'Werkzeugkoffer'],
  ['gloves', 'Handschuhe'], ['socks', 'Socken'], ['sunglasses', 'Sonnenbrille'], ['wallet', 'Geldbörse'], ['umbrella', 'Schirm'], ['teapot', 'Teekanne'],
  ['stroller', 'Kinderwagen'], ['dog bed', 'Hundebett'], ['board game', 'Brettspiel'], ['clock', 'Uhr'],
];
const ADJECTIVES: [string, string][] = [
  ['lightweight', 'leichte'], ['waterproof', 'wasserdichte'], ['breathable', 'atmungsaktive'], ['compact', 'kompakte'], ['wireless', 'kabellose'],
  ['durable', 'robuste'], ['ergonomic', 'ergonomische'], ['foldable', 'faltbare'], ['insulated', 'isolierte'], ['premium', 'hochwertige'],
  ['classic', 'klassische'], ['modern', 'moderne'], ['portable', 'tragbare'], ['adjustable', 'verstellbare'], ['rechargeable', 'wiederaufladbare'],
  ['organic', 'biologische'], ['soft', 'weiche'], ['quiet', 'leise'], ['stainless', 'rostfreie'], ['vintage', 'nostalgische'],
  ['professional', 'professionelle'], ['slim', 'schlanke'], ['warm', 'warme'], ['handmade', 'handgemachte'], ['sustainable', 'nachhaltige'],
];
const MATERIALS: [string, string][] = [
  ['cotton', 'Baumwolle'], ['merino wool', 'Merinowolle'], ['leather', 'Leder'], ['stainless steel', 'Edelstahl'], ['bamboo', 'Bambus'],
  ['recycled polyester', 'recyceltes Polyester'], ['aluminium', 'Aluminium'], ['ceramic', 'Keramik'], ['glass', 'Glas'], ['oak wood', 'Eichenholz'],
  ['silicone', 'Silikon'], ['nylon', 'Nylon'], ['linen', 'Leinen'], ['cast iron', 'Gusseisen'], ['carbon', 'Carbon'],
];
const COLOURS: [string, string][] = [
  ['black', 'schwarz'], ['white', 'weiß'], ['blue', 'blau'], ['red', 'rot'], ['green', 'grün'], ['grey', 'grau'], ['navy', 'marineblau'],
  ['beige', 'beige'], ['olive', 'oliv'], ['yellow', 'gelb'], ['orange', 'orange'], ['pink', 'rosa'], ['brown', 'braun'], ['silver', 'silber'],
];
const SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL', '36', '38', '40', '42', '44', 'one size'];
const BRAND_STEMS = [
  'Nordwind', 'Alpenglow', 'Bergfeld', 'Sunridge', 'Oakhaven', 'Kestrel', 'Lumina', 'Vireo', 'Tannheim', 'Brightwater', 'Halvorsen',
  'Edelweiss', 'Stormline', 'Quellwerk', 'Polaris', 'Fjordline', 'Hochland', 'Greywolf', 'Silvertree', 'Rheinmark', 'Wanderlust',
  'Kupferberg', 'Bluefin', 'Moosgrund', 'Redcliff', 'Sonnenhof', 'Ironbark', 'Glacier', 'Feldmann', 'Ashgrove', 'Zugspitz',
  'Meridian', 'Schwarzwald', 'Cobalt', 'Heidekraut', 'Lakeside', 'Donautal', 'Pinecrest', 'Eichwald', 'Westwind',
];
/** Description words by language, most frequent first (a zipf draw favours the head). */
const FILLER_EN = (
  'the and for with a of to in is this your it on you that are from our made perfect design quality easy use everyday comfort ' +
  'features durable high new great fit ideal size best light simple smooth clean care style strong long lasting material ' +
  'comfortable practical reliable safe modern classic premium soft warm water resistant protection support performance outdoor indoor ' +
  'travel home kitchen office sport garden family children adults gift season summer winter spring autumn weather daily ' +
  'friendly storage battery charging power energy efficient quiet noise sound grip handle strap pocket zipper lining sole ' +
  'cushioning stability ventilation insulation coating finish surface edge blade lid base frame cover fabric stitch seam ' +
  'washable machine dishwasher oven induction compatible adjustable removable foldable portable compact lightweight ergonomic ' +
  'guarantee warranty tested certified sustainable recycled organic natural vegan hypoallergenic breathable waterproof windproof'
).split(' ');
const FILLER_DE = (
  'der die das und mit für ein eine ist zu im von den dem auf sich aus bei ihre unsere perfekt design qualität einfach ' +
  'alltag komfort robust hoch neu passform ideal größe leicht sauber pflege stil stark langlebig material bequem praktisch ' +
  'zuverlässig sicher modern klassisch weich warm wasserabweisend schutz halt leistung draußen drinnen reise haus küche ' +
  'büro sport garten familie kinder erwachsene geschenk sommer winter frühling herbst wetter täglich freundlich aufbewahrung ' +
  'akku laden energie effizient leise geräusch griff henkel riemen tasche reißverschluss futter sohle dämpfung stabilität ' +
  'belüftung isolierung beschichtung oberfläche kante klinge deckel rahmen bezug stoff naht waschbar spülmaschinenfest ' +
  'backofen induktion geeignet verstellbar abnehmbar faltbar tragbar kompakt ergonomisch garantie geprüft zertifiziert ' +
  'nachhaltig recycelt natürlich vegan atmungsaktiv wasserdicht winddicht größenverstellbar fußgängerfreundlich'
).split(' ');
const AVAILABILITY: [string, number][] = [['InStock', 0.7], ['OutOfStock', 0.15], ['PreOrder', 0.08], ['LimitedAvailability', 0.07]];

interface GeneratedProduct {
  /** What ProductService.upsertMany is given. */
  input: ProductInput & { description: string };
  site: number;
  cluster: number;
  brand: number;
  price: number;
}

/** Shares of German products and of products with a similarity anchor. */
interface CatalogueOptions {
  sites: number;
  clusters: number;
  german: number;
  anchors: number;
}

/** A generator of products; product i is the same for a given seed. */
export class Catalogue {
  readonly brands: string[];
  private readonly brandZipf: Zipf<number>;
  private readonly fillers: Record<'en' | 'de', Zipf<string>>;
  private readonly tails: Record<'en' | 'de', string[]>;
  private readonly adjectives = zipf(ADJECTIVES.map((_, i) => i), 0.8);
  private readonly materials = zipf(MATERIALS.map((_, i) => i), 0.8);
  private readonly colours = zipf(COLOURS.map((_, i) => i), 0.9);

  constructor(
    private readonly rng: Rng,
    readonly options: CatalogueOptions,
  ) {
    // 80 brands: the stems and stem + suffix variants, zipf-distributed over the products.
    this.brands = [...BRAND_STEMS, ...BRAND_STEMS.map((b, i) => `${b} ${['Pro', 'Outdoor', 'Home', 'Sport'][i % 4]}`)];
    this.brandZipf = zipf(this.brands.map((_, i) => i), 0.9);
    this.tails = { en: pseudoWords(rng, 6000, SYLLABLES_EN), de: pseudoWords(rng, 6000, SYLLABLES_DE) };
    this.fillers = { en: zipf([...FILLER_EN, ...this.tails.en], 1.05), de: zipf([...FILLER_DE, ...this.tails.de], 1.05) };
  }

  /** The vocabulary queries draw from, by language: head words first (zipf-ordered). */
  vocabulary(): { brands: string[]; words: Record<'en' | 'de', string[]> } {
    const words = (lang: 0 | 1, filler: string[]) => [
      ...CATEGORIES.map((c) => c[lang]), ...NOUNS.map((n) => n[lang]), ...ADJECTIVES.map((a) => a[lang]), ...MATERIALS.map((m) => m[lang]),
      ...COLOURS.map((c) => c[lang]), ...filler,
    ].flatMap((w) => queryableWords(w));
    return { brands: this.brands, words: { en: words(0, [...FILLER_EN, ...this.tails.en]), de: words(1, [...FILLER_DE, ...this.tails.de]) } };
  }

  product(i: number): GeneratedProduct {
    const rng = this.rng;
    const german = rng.chance(this.options.german);
    const l: 0 | 1 = german ? 1 : 0;
    const lang = german ? 'de' : 'en';
    // A cluster is a category with sub-topics: the vectors follow the category.
    const clustersPerCategory = Math.max(1, Math.floor(this.options.clusters / CATEGORIES.length));
    const category = rng.int(CATEGORIES.length);
    const cluster = Math.min(this.options.clusters - 1, category * clustersPerCategory + rng.int(clustersPerCategory));
    const brand = this.brandZipf(rng);
    const adjective = ADJECTIVES[this.adjectives(rng)][l];
    const material = MATERIALS[this.materials(rng)][l];
    const colour = COLOURS[this.colours(rng)][l];
    const noun = NOUNS[category][l];
    const model = this.tails[lang][rng.int(this.tails[lang].length)];
    const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
    const title = german
      ? `${this.brands[brand]} ${cap(model)} ${cap(adjective)} ${noun} aus ${material}, ${colour}`
      : `${this.brands[brand]} ${cap(model)} ${cap(adjective)} ${cap(material)} ${cap(noun)}, ${cap(colour)}`;
    const words: string[] = [];
    const length = 30 + rng.int(51);
    const filler = this.fillers[lang];
    for (let w = 0; w < length; w++) {
      const r = rng.next();
      words.push(r < 0.06 ? noun : r < 0.09 ? material : r < 0.11 ? adjective : r < 0.12 ? colour : filler(rng));
    }
    const description = cap(words.join(' ')) + '.';
    const price = Math.round(Math.exp(1.6 + rng.next() * 4.6) * 100) / 100; // ~5 to ~500, log-uniform
    const msrp = rng.chance(0.3) ? (price * (1.1 + rng.next() * 0.4)).toFixed(2) : null;
    let availability = AVAILABILITY[0][0];
    for (let u = rng.next(), acc = 0, k = 0; k < AVAILABILITY.length; k++) {
      acc += AVAILABILITY[k][1];
      if (u < acc) {
        availability = AVAILABILITY[k][0];
        break;
      }
    }
    const keywords = rng.chance(0.3) ? Array.from({ length: 1 + rng.int(3) }, () => filler(rng)) : [];
    const site = i % this.options.sites;
    const anchor = rng.chance(this.options.anchors) ? `${CATEGORIES[category][l]} ${adjective} ${material}` : null;
    const input: GeneratedProduct['input'] = {
      external_id: `p-${i}`,
      title,
      description,
      short_description: rng.chance(0.5) ? `${cap(adjective)} ${noun}, ${material}` : null,
      sku: `SKU-${String(i).padStart(7, '0')}`,
      gtin: String(4000000000000 + i * 7),
      brand: this.brands[brand],
      category: CATEGORIES[category][l],
      attributes: { color: colour, size: rng.pick(SIZES), material },
      properties: { model: cap(model), weight_g: String(50 + rng.int(5000)) },
      price_current: price.toFixed(2),
      price_msrp: msrp,
      currency: 'EUR',
      availability,
      language: lang,
      search_keywords: keywords,
      similarity_text: anchor,
      sync_hash: `h${i}`,
    };
    return { input, site, cluster, brand, price };
  }
}

// ---- queries ---------------------------------------------------------------------------------

/** One letter changed, dropped, doubled or swapped with the next (a typo), away from the first letter. */
function typo(rng: Rng, word: string): string {
  const chars = [...word];
  if (chars.length < 3) return word;
  const at = 1 + rng.int(chars.length - 1);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  switch (rng.int(4)) {
    case 0:
      chars[at] = letters[rng.int(26)];
      break;
    case 1:
      chars.splice(at, 1);
      break;
    case 2:
      chars.splice(at, 0, chars[at]);
      break;
    default:
      if (at < chars.length - 1) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
      else chars[at] = letters[rng.int(26)];
  }
  return chars.join('');
}

/** Function words at the head of the description vocabulary: nobody searches a shop for them. */
const STOP = new Set([...FILLER_EN.slice(0, 20), ...FILLER_DE.slice(0, 20), 'aus']);

/** Words of a text usable as query words (letters and digits, 3+ characters, no function words). */
export const queryableWords = (text: string): string[] =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 3 && !STOP.has(w));

/**
 * A storefront query of 1–3 words: most from one product's own texts (so it matches something),
 * some from the frequent head of the vocabulary; ~20% with a one-letter typo, ~30% typed as a
 * prefix of the last word (search-as-you-type).
 */
export function storefrontQuery(rng: Rng, sourceWords: string[], head: Zipf<string>, typoShare = 0.2, prefixShare = 0.3): string {
  const r = rng.next();
  const count = r < 0.35 ? 1 : r < 0.75 ? 2 : 3;
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(rng.chance(0.25) || sourceWords.length === 0 ? head(rng) : rng.pick(sourceWords));
  if (rng.chance(typoShare)) {
    const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5);
    if (long.length > 0) {
      const [w, i] = rng.pick(long);
      words[i] = typo(rng, w);
    }
  }
  if (rng.chance(prefixShare)) {
    const last = words[words.length - 1];
    if (last.length >= 4) words[words.length - 1] = last.slice(0, 2 + rng.int(last.length - 2));
  }
  return words.join(' ');
}
