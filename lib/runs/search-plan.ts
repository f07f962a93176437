/**
 * How the history's text search reads its trigram index ("searchText contains q", both lower-cased).
 *
 * Both indexes (SQLite's FTS5 trigram table, PostgreSQL's pg_trgm GIN index) answer "contains q" by intersecting
 * the list of runs of every trigram of q. A run's name is ~60 trigrams, most of them in a large share of all runs,
 * so asking for all of them reads far more than the answer needs. Any run containing q contains every part of q,
 * so asking the index only for a few of its trigrams and then checking the whole text on the runs it returns
 * (the candidates) gives exactly the same runs. Which few: the ones that together leave the fewest candidates for
 * the least reading, judged from a sample of the newest runs (`SearchSample`), as a query planner judges from its
 * statistics. The sample only steers the cost; the answer never depends on it.
 *
 * The same holds for the indexes of pairs and triples of neighbouring words (lib/document/search-pairs.ts): a run
 * containing q holds every pair and triple of whole words of q, and those are often far rarer than any trigram of
 * them. The plan picks from all three kinds alike.
 */
import { pairsOfQuery, pairsOfText, triplesOfQuery, triplesOfText } from "@/lib/document/search-pairs";

/** Runs in the sample: the newest ones, in the history's order. */
export const SEARCH_SAMPLE_ROWS = 2_000;
/** Characters of each run's text the sample keeps: a name, a model and a launch command as typed. */
export const SEARCH_SAMPLE_CHARS = 1_000;
/**
 * Characters the whole sample keeps (fewer runs when their texts are long): what bounds the time (~100 ms) and
 * the memory it takes to read, however long the notes uploaded.
 */
const SEARCH_SAMPLE_BUDGET_CHARS = 1_000_000;
/** At most this many trigrams and pairs are asked of the indexes: each one more is a list read whole. */
const MAX_KEYS = 6;
/**
 * Reading one entry of a trigram's list against testing one run's text (a row read and a substring search):
 * measured ~20 ns against ~1 µs on both databases at 100,000 runs. SQLite passes its own (PlanOptions).
 */
const LIST_ENTRY_COST = 1 / 50;

/** The trigrams of a text as both indexes see them: each three consecutive characters (code points), once each. */
export function trigramsOf(text: string): string[] {
  const chars = [...text];
  const seen = new Set<string>();
  for (let index = 0; index + 3 <= chars.length; index += 1) {
    seen.add(`${chars[index]}${chars[index + 1]}${chars[index + 2]}`);
  }
  return [...seen];
}

export interface SearchSample {
  /** How many runs the sample holds. */
  rows: number;
  /** Whether those are all the runs of the history (then its shares are exact, not estimates). */
  whole: boolean;
  /** Each run's text, at most SEARCH_SAMPLE_CHARS of it. */
  texts: string[];
  /** For each trigram, the sample's runs (indexes into `texts`, ascending) whose text holds it. */
  runsWith: Map<string, Uint16Array>;
  /** The same as bit sets, made when a search first asks for the trigram. */
  bitsOf: Map<string, Uint32Array>;
  /** For each pair of neighbouring words (`first second`), the sample's runs whose text holds it. */
  pairRunsWith: Map<string, Uint16Array>;
  /** The same as bit sets, made when a search first asks for the pair. */
  pairBitsOf: Map<string, Uint32Array>;
  /** For each triple of neighbouring words (`first second third`), the sample's runs whose text holds it. */
  tripleRunsWith: Map<string, Uint16Array>;
  /** The same as bit sets, made when a search first asks for the triple. */
  tripleBitsOf: Map<string, Uint32Array>;
}

/** A sample from the newest runs' texts (at most SEARCH_SAMPLE_ROWS, newest first), `whole` when that is all of them. */
export function buildSearchSample(texts: readonly string[], whole: boolean): SearchSample {
  const lists = new Map<string, number[]>();
  const pairLists = new Map<string, number[]>();
  const tripleLists = new Map<string, number[]>();
  const kept: string[] = [];
  const starts: number[] = [];
  let budget = SEARCH_SAMPLE_BUDGET_CHARS;
  for (const [row, full] of texts.slice(0, SEARCH_SAMPLE_ROWS).entries()) {
    if (budget <= 0) break;
    // Where each character starts (in UTF-16 units), so a trigram is one slice of the text.
    starts.length = 0;
    for (let unit = 0; unit < full.length && starts.length <= SEARCH_SAMPLE_CHARS; ) {
      starts.push(unit);
      unit += (full.codePointAt(unit) ?? 0) > 0xffff ? 2 : 1;
    }
    const chars = Math.min(starts.length, SEARCH_SAMPLE_CHARS);
    budget -= chars;
    const text = chars < starts.length ? full.slice(0, starts[chars]) : full;
    starts.push(text.length);
    kept.push(text);
    for (let index = 0; index + 3 <= chars; index += 1) {
      const trigram = text.slice(starts[index], starts[index + 3]);
      const list = lists.get(trigram);
      if (!list) lists.set(trigram, [row]);
      else if (list[list.length - 1] !== row) list.push(row);
    }
    for (const [sequences, into] of [
      [pairsOfText(text), pairLists],
      [triplesOfText(text), tripleLists],
    ] as const) {
      for (const sequence of sequences) {
        const list = into.get(sequence);
        if (!list) into.set(sequence, [row]);
        else list.push(row);
      }
    }
  }
  const packed = (from: Map<string, number[]>) =>
    new Map([...from].map(([key, list]) => [key, Uint16Array.from(list)]));
  return {
    rows: kept.length,
    whole: whole && kept.length === texts.length,
    texts: kept,
    runsWith: packed(lists),
    bitsOf: new Map(),
    pairRunsWith: packed(pairLists),
    pairBitsOf: new Map(),
    tripleRunsWith: packed(tripleLists),
    tripleBitsOf: new Map(),
  };
}

export type SearchPlan =
  /**
   * The text is common: walk the page's order testing each run (its first matches come soon). PostgreSQL is given
   * the whole text to its index and its planner chooses, as it also is when no trigram can be asked alone.
   */
  | { kind: "walk" }
  /**
   * Ask the indexes for the runs holding all these trigrams, pairs and triples (any list may be empty, not all),
   * then check the whole text on them.
   */
  | { kind: "index"; trigrams: string[]; pairs: string[]; triples: string[] };

export interface PlanOptions {
  /** Runs in the history. */
  total: number;
  /** How many matches the page's query needs, in its order. */
  take: number;
  /** Which trigrams the database's index can be asked for alone (PostgreSQL: letters and digits only). */
  usable?: (trigram: string) => boolean;
  /** Whether the pair index may be asked: every run's pairs are stored (false while older runs lack them). */
  pairs?: boolean;
  /** Whether the triple index may be asked, likewise. */
  triples?: boolean;
  /** Reading one list entry, in runs tested (LIST_ENTRY_COST unless the database's own was measured). */
  listEntryCost?: number;
}

type Bits = Uint32Array;

function bitsOf(lists: Map<string, Uint16Array>, cache: Map<string, Bits>, key: string, words: number): Bits {
  const known = cache.get(key);
  if (known) return known;
  const rows = lists.get(key);
  const bits = new Uint32Array(words);
  if (!rows) return bits; // Not kept: what is kept stays bounded by the sample's own trigrams and pairs.
  for (const row of rows) bits[row >>> 5] = (bits[row >>> 5] ?? 0) | (1 << (row & 31));
  cache.set(key, bits);
  return bits;
}

function and(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(a.length);
  for (let index = 0; index < a.length; index += 1) out[index] = (a[index] ?? 0) & (b[index] ?? 0);
  return out;
}

function bitCount(word: number): number {
  let bits = word - ((word >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return (((bits + (bits >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function count(bits: Bits): number {
  let total = 0;
  for (const word of bits) total += bitCount(word);
  return total;
}

/** count(and(a, b)) without building it. */
function countBoth(a: Bits, b: Bits): number {
  let total = 0;
  for (let index = 0; index < a.length; index += 1) total += bitCount((a[index] ?? 0) & (b[index] ?? 0));
  return total;
}

/**
 * The cheaper way to answer "contains text" (three characters or more), in units of one run's text tested:
 *
 * - walking the order's index tests about take / share runs before the page is full (the share of runs matching,
 *   from the sample), all of them when the text is rarer than that;
 * - the index reads each asked trigram's list whole (its share of the runs × total entries, listEntryCost
 *   each) and tests the text on the candidates, the runs holding all of them.
 *
 * - a pair or triple of whole words of the text is asked for like a trigram, from its own list (usually far
 *   shorter).
 *
 * The trigrams and pairs are picked greedily: each step adds the one that lowers that cost most (fewer candidates
 * for its list's length), until none does. One the sample never saw counts as half a run of it: rarer than the
 * sample can tell. When the sample is the whole history, the index is always used: it is small.
 */
export function planSearch(sample: SearchSample, text: string, options: PlanOptions): SearchPlan {
  const { total, take } = options;
  const usable = options.usable ?? (() => true);
  const rows = Math.max(1, sample.rows);
  const words = Math.ceil(rows / 32);
  const trigrams = trigramsOf(text);
  const bits = new Map(
    trigrams.map((trigram) => [trigram, bitsOf(sample.runsWith, sample.bitsOf, trigram, words)] as const),
  );
  const pairs = options.pairs ? pairsOfQuery(text) : [];
  const triples = options.triples ? triplesOfQuery(text) : [];

  // The sample's runs holding the whole text: those holding all its trigrams, checked.
  let holdingAll: Bits | null = null;
  for (const trigramBits of bits.values()) holdingAll = holdingAll ? and(holdingAll, trigramBits) : trigramBits;
  let matching = 0;
  if (holdingAll) {
    holdingAll.forEach((word, wordIndex) => {
      for (let bit = 0; bit < 32; bit += 1) {
        if ((word & (1 << bit)) !== 0 && sample.texts[wordIndex * 32 + bit]?.includes(text)) matching += 1;
      }
    });
  }
  const shareOf = (runs: number) => Math.max(runs, 0.5) / rows;
  const walkCost = Math.min(total, take / shareOf(matching));

  const listEntryCost = options.listEntryCost ?? LIST_ENTRY_COST;
  const listCostOf = (keyBits: Bits) => listEntryCost * total * shareOf(count(keyBits));
  const candidates = [
    ...trigrams.filter(usable).map((trigram) => {
      const keyBits = bits.get(trigram) as Bits;
      return { kind: "trigram" as const, key: trigram, bits: keyBits, listCost: listCostOf(keyBits) };
    }),
    ...pairs.map((pair) => {
      const keyBits = bitsOf(sample.pairRunsWith, sample.pairBitsOf, pair, words);
      return { kind: "pair" as const, key: pair, bits: keyBits, listCost: listCostOf(keyBits) };
    }),
    ...triples.map((triple) => {
      const keyBits = bitsOf(sample.tripleRunsWith, sample.tripleBitsOf, triple, words);
      return { kind: "triple" as const, key: triple, bits: keyBits, listCost: listCostOf(keyBits) };
    }),
  ];
  type Candidate = (typeof candidates)[number];
  const chosen: Candidate[] = [];
  let chosenBits: Bits | null = null;
  let listCost = 0;
  let cost = Number.POSITIVE_INFINITY;
  while (chosen.length < MAX_KEYS) {
    let best: { candidate: Candidate; cost: number } | null = null;
    for (const candidate of candidates) {
      if (chosen.includes(candidate)) continue;
      const left: number = chosenBits ? countBoth(chosenBits, candidate.bits) : count(candidate.bits);
      const nextCost: number = listCost + candidate.listCost + total * shareOf(left);
      if (!best || nextCost < best.cost) best = { candidate, cost: nextCost };
    }
    if (!best || best.cost >= cost) break;
    chosen.push(best.candidate);
    chosenBits = chosenBits ? and(chosenBits, best.candidate.bits) : best.candidate.bits;
    listCost += best.candidate.listCost;
    cost = best.cost;
  }
  if (chosen.length === 0) return { kind: "walk" };
  if (!sample.whole && walkCost <= cost) return { kind: "walk" };
  const keysOf = (kind: Candidate["kind"]) => chosen.filter((key) => key.kind === kind).map((key) => key.key);
  return { kind: "index", trigrams: keysOf("trigram"), pairs: keysOf("pair"), triples: keysOf("triple") };
}
