/**
 * Word pairs: the history search's second index, for texts whose parts are each common and only their combination
 * rare (a whole run name: `tensorrt-llm 1.0.0 · qwen3-30b-a3b · a100-sxm4-80gb ×1`, every part of it in 10–20% of
 * the runs). A trigram index can only intersect lists as long as those parts are common; a pair of neighbouring
 * words is about as rare as the pair itself (`qwen3-30b-a3b a100-sxm4-80gb`: 1.8% of such a history).
 *
 * A word is a run of characters between whitespace that holds at least one letter or digit (`·`, `|`, `-` alone
 * are skipped, so `a · b` pairs `a` with `b`). Each run stores the distinct pairs of its lower-cased search text as
 * short tokens (`Run.searchPairs`, space-separated), which SQLite's FTS5 and PostgreSQL's GIN index keep an index
 * of. A query uses only the pairs it holds whole: a word preceded and followed by whitespace inside the query is a
 * whole word of every text containing the query, so every run containing the query holds those pairs, and the
 * pairs narrow the candidates without ever losing one. The whole query is still checked on every candidate.
 */
import { createHash } from "node:crypto";

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s+/u;

/** Hex digits of a pair's token: 40 bits. Two pairs sharing a token only add candidates, which are checked. */
const TOKEN_HEX_DIGITS = 10;

function isWord(part: string): boolean {
  return part !== "" && WORD_CHARACTER.test(part);
}

/** A pair's key as the search plan counts it: the two words, a space between. */
function pairKey(first: string, second: string): string {
  return `${first} ${second}`;
}

/** The distinct pairs of neighbouring words of a text (already lower-cased), in order of first appearance. */
export function pairsOfText(text: string): string[] {
  const words = text.split(WHITESPACE).filter(isWord);
  const pairs = new Set<string>();
  for (let index = 0; index + 1 < words.length; index += 1) {
    pairs.add(pairKey(words[index] as string, words[index + 1] as string));
  }
  return [...pairs];
}

/**
 * The pairs every text containing `query` holds: pairs of neighbouring whole words of the query. Its first and
 * last parts are left out (a text may continue them: `qwen3` is the start of `qwen3-30b`), whole parts without a
 * letter or digit are skipped as in the texts.
 */
export function pairsOfQuery(query: string): string[] {
  // The first and the last part may be the middle of a text's word. When the query starts (ends) with whitespace,
  // the first (last) part is the empty string, and the word after (before) it is whole.
  const whole = query.split(WHITESPACE).slice(1, -1).filter(isWord);
  const pairs = new Set<string>();
  for (let index = 0; index + 1 < whole.length; index += 1) {
    pairs.add(pairKey(whole[index] as string, whole[index + 1] as string));
  }
  return [...pairs];
}

/** The token a pair is stored and asked for as: hex digits only, which both indexes take as one word. */
export function pairToken(pair: string): string {
  return createHash("sha1").update(pair).digest("hex").slice(0, TOKEN_HEX_DIGITS);
}

/** `Run.searchPairs` for a run's search text: its pairs' distinct tokens, space-separated. */
export function searchPairsOf(searchText: string): string {
  return [...new Set(pairsOfText(searchText).map(pairToken))].join(" ");
}
