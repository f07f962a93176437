/**
 * Word pairs and triples: the history search's second and third indexes, for texts whose parts are each common
 * and only their combination rare (a whole run name: `tensorrt-llm 1.0.0 · qwen3-30b-a3b · a100-sxm4-80gb ×1`,
 * every part of it in 10–20% of the runs). A trigram index can only intersect lists as long as those parts are
 * common; neighbouring words are about as rare as their combination (`qwen3-30b-a3b a100-sxm4-80gb`: 1.8% of such
 * a history; `1.0.0 qwen3-30b-a3b a100-sxm4-80gb`: 0.17%).
 *
 * A word is a run of characters between whitespace that holds at least one letter or digit (`·`, `|`, `-` alone
 * are skipped, so `a · b` pairs `a` with `b`). Each run stores the distinct pairs and the distinct triples of its
 * lower-cased search text as short tokens (`Run.searchPairs`, `Run.searchTriples`, space-separated), which SQLite's
 * FTS5 and PostgreSQL's GIN indexes keep an index of. A query uses only the sequences it holds whole: a word
 * preceded and followed by whitespace inside the query is a whole word of every text containing the query, so
 * every run containing the query holds those sequences, and they narrow the candidates without ever losing one.
 * The whole query is still checked on every candidate.
 */
import { createHash } from "node:crypto";

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s+/u;

/** Hex digits of a token: 40 bits. Two sequences sharing a token only add candidates, which are checked. */
const TOKEN_HEX_DIGITS = 10;

function isWord(part: string): boolean {
  return part !== "" && WORD_CHARACTER.test(part);
}

/** A sequence's key as the search plan counts it: its words, a space between. */
function sequencesOf(words: readonly string[], length: 2 | 3): string[] {
  const sequences = new Set<string>();
  for (let index = 0; index + length <= words.length; index += 1) {
    sequences.add(words.slice(index, index + length).join(" "));
  }
  return [...sequences];
}

function wordsOfText(text: string): string[] {
  return text.split(WHITESPACE).filter(isWord);
}

/**
 * The words every text containing `query` holds whole. Its first and last parts are left out (a text may continue
 * them: `qwen3` is the start of `qwen3-30b`); when the query starts (ends) with whitespace, the first (last) part
 * is the empty string, and the word after (before) it is whole. Parts without a letter or digit are skipped as in
 * the texts.
 */
function wholeWordsOfQuery(query: string): string[] {
  return query.split(WHITESPACE).slice(1, -1).filter(isWord);
}

/** The distinct pairs of neighbouring words of a text (already lower-cased), in order of first appearance. */
export function pairsOfText(text: string): string[] {
  return sequencesOf(wordsOfText(text), 2);
}

/** The distinct triples of neighbouring words of a text (already lower-cased), in order of first appearance. */
export function triplesOfText(text: string): string[] {
  return sequencesOf(wordsOfText(text), 3);
}

/** The pairs every text containing `query` holds: pairs of neighbouring whole words of the query. */
export function pairsOfQuery(query: string): string[] {
  return sequencesOf(wholeWordsOfQuery(query), 2);
}

/** The triples every text containing `query` holds: triples of neighbouring whole words of the query. */
export function triplesOfQuery(query: string): string[] {
  return sequencesOf(wholeWordsOfQuery(query), 3);
}

/**
 * The token a pair or a triple is stored and asked for as: hex digits only, which both indexes take as one word.
 * Pairs and triples are kept in separate columns, so a pair's token never stands for a triple.
 */
export function wordsToken(sequence: string): string {
  return createHash("sha1").update(sequence).digest("hex").slice(0, TOKEN_HEX_DIGITS);
}

function tokensOf(sequences: readonly string[]): string {
  return [...new Set(sequences.map(wordsToken))].join(" ");
}

/** `Run.searchPairs` for a run's search text: its pairs' distinct tokens, space-separated. */
export function searchPairsOf(searchText: string): string {
  return tokensOf(pairsOfText(searchText));
}

/** `Run.searchTriples` for a run's search text: its triples' distinct tokens, space-separated. */
export function searchTriplesOf(searchText: string): string {
  return tokensOf(triplesOfText(searchText));
}
