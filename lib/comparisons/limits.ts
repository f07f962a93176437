/** How much a comparison holds: limits its view, its model and a saved comparison share. */

/** The most runs one comparison compares. */
export const MAX_COMPARED_RUNS = 12;

/** The longest title a saved comparison may have, in characters. */
export const MAX_TITLE_LENGTH = 200;
