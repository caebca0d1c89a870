// How much of a query a document must match, for both engines. Documents matching every query word
// come first; then those matching words that carry more than COVERAGE of the query's weight (the
// words' idf): the product for a query naming it and an attribute it lacks ("regenjacke rot"), not
// whatever shares the attribute, and not a bike light for "bike helmet" in a shop without helmets.

export const COVERAGE = 0.5;

/**
 * What a refining word weighs: a German adjective, or a word after "für", "mit", "for", "with"
 * ("günstige kaffeemaschine mit timer" still finds coffee machines without a timer).
 */
export const MINOR_WEIGHT = 0.35;

/** What a word matched only by its typo variants weighs (the Query Engine; the built-in engine weighs each variant by its edits). */
export const LOOSE_WEIGHT = 0.6;
