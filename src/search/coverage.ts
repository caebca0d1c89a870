// How much of a query a document must match, for both engines. Documents matching every query word
// come first; then those matching words that carry more than COVERAGE of the query's weight (the
// words' idf): the product for a query naming it and an attribute it lacks ("regenjacke rot"), not
// whatever shares the attribute, and not a bike light for "bike helmet" in a shop without helmets.

export const COVERAGE = 0.5;

/**
 * Documents matching enough of a query's words follow those matching all of them only while
 * fewer than this many match all of them (Typesense's drop_tokens_threshold, Algolia's
 * removeWordsIfNoResults): the page of a query its catalogue answers in full is the same, and the
 * engine does not rank and count the far larger set of partial matches behind it. Decided on the
 * count, not on the page, so that every page of a search reads the same total.
 */
export const PARTIAL_TIER_BELOW = 100;

/**
 * What a refining word weighs: a German adjective, or a word after "für", "mit", "for", "with"
 * ("günstige kaffeemaschine mit timer" still finds coffee machines without a timer).
 */
export const MINOR_WEIGHT = 0.35;

/** What a word matched only by its typo variants weighs (the Query Engine; the built-in engine weighs each variant by its edits). */
export const LOOSE_WEIGHT = 0.6;
