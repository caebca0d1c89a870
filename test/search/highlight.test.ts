// Highlighting (src/search/highlight.ts): the words keyword search matches (stems, compound tails,
// folding, typo variants, the last word as a prefix) marked in a hit's fields, escaped, with a
// snippet around the best-matching passage; and a facet value's typed prefix marked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markPrefix, QueryHighlighter, type HighlightOptions } from '../../src/search/highlight.js';

const options = (language: string, more: Partial<HighlightOptions> = {}): HighlightOptions => ({ language, preTag: '<mark>', postTag: '</mark>', snippetWords: 20, ...more });
const product = (title: string | null, description: string | null = null, brand: string | null = null) => ({ title, brand, description });
const highlight = (query: string, title: string, language = 'de') => new QueryHighlighter(query, options(language)).product(product(title));

test('a German compound is marked whole for the word it ends in; stopwords are not marked', () => {
  const h = new QueryHighlighter('jacke für damen', options('de')).product(product('Leichte Regenjacke für Damen'));
  assert.equal(h.title, 'Leichte <mark>Regenjacke</mark> für <mark>Damen</mark>');
  assert.deepEqual(h.matched_words, ['regenjacke', 'damen']);
  assert.equal(highlight('jacke', 'Leichte Regenjacke für Damen').title, 'Leichte <mark>Regenjacke</mark> für Damen');
});

test('stems match: Häuser marks Haus, schuhe marks Schuh', () => {
  assert.equal(highlight('Häuser', 'Ein Haus aus Holz').title, 'Ein <mark>Haus</mark> aus Holz');
  assert.equal(highlight('schuhe', 'Schuh Größe 42').title, '<mark>Schuh</mark> Größe 42');
  assert.equal(highlight('lanterns', 'Camping Lantern, LED', 'en').title, 'Camping <mark>Lantern</mark>, LED');
});

test('folding: a query without accents marks the word with them', () => {
  assert.equal(highlight('grosse', 'Große Tasche').title, '<mark>Große</mark> Tasche');
});

test('a typo within the budget marks the word; not when the product holds the word as typed', () => {
  const h = new QueryHighlighter('lanturn', options('en')).product(product('Camping Lantern', 'A bright lantern for the tent.'));
  assert.equal(h.title, 'Camping <mark>Lantern</mark>');
  assert.deepEqual(h.matched_words, ['lantern']);
  // "lantern" is as typed here: "lanterm" is a typo variant the engines would not have sought.
  assert.equal(highlight('lantern', 'Lantern or lanterm', 'en').title, '<mark>Lantern</mark> or lanterm');
  // Four letters allow no typo.
  assert.equal(highlight('lamp', 'Camping Lump', 'en').title, 'Camping Lump');
});

test('the last word being typed matches as a prefix; not after a space, nor under three letters', () => {
  assert.equal(highlight('regenj', 'Leichte Regenjacke').title, 'Leichte <mark>Regenjacke</mark>');
  assert.equal(highlight('regenj ', 'Leichte Regenjacke').title, 'Leichte Regenjacke');
  assert.equal(highlight('leichte re', 'Leichte Regenjacke').title, '<mark>Leichte</mark> Regenjacke');
  // Only the last word completes.
  assert.equal(highlight('regenj damen', 'Regenjacke Damen').title, 'Regenjacke <mark>Damen</mark>');
});

test('two typed words that join to a compound mark it; a compound query marks its parts written apart', () => {
  assert.equal(highlight('regen jacke', 'Regenjacke').title, '<mark>Regenjacke</mark>');
  assert.equal(highlight('akkubohrschrauber', 'Akku Bohrschrauber 18V').title, '<mark>Akku</mark> <mark>Bohrschrauber</mark> 18V');
  // A part alone is no match for the compound: a reading holds with all its parts only.
  assert.equal(highlight('akkubohrschrauber', 'Akku Ladegerät').title, 'Akku Ladegerät');
});

test('a query of stopwords only marks them', () => {
  assert.equal(highlight('für und ', 'Für Sie und Ihn').title, '<mark>Für</mark> Sie <mark>und</mark> Ihn');
});

test('fields are HTML-escaped, tags inserted verbatim; null fields stay null', () => {
  const h = new QueryHighlighter('jacke', options('de', { preTag: '<em class="hl">', postTag: '</em>' })).product({
    title: '<b>&"Jacke"\'s',
    brand: null,
    description: null,
  });
  assert.equal(h.title, '&lt;b&gt;&amp;&quot;<em class="hl">Jacke</em>&quot;&#39;s');
  assert.equal(h.brand, null);
  assert.equal(h.description, null);
  assert.equal(h.snippet, null);
  assert.equal(highlight('b', '<b>&').title, '&lt;<mark>b</mark>&gt;&amp;');
});

test('matched words: distinct, lower-case, in order across title, brand, description', () => {
  const h = new QueryHighlighter('jack wolfskin jacke', options('de')).product(product('Wolfskin Regenjacke', 'Die Jacke von Jack Wolfskin. Jacke!', 'Jack Wolfskin'));
  assert.deepEqual(h.matched_words, ['wolfskin', 'regenjacke', 'jack', 'jacke']);
  assert.equal(h.brand, '<mark>Jack</mark> <mark>Wolfskin</mark>');
});

test('the snippet is cut around the densest matches, with ellipses', () => {
  const filler = (from: number, n: number) => Array.from({ length: n }, (_, i) => `wort${from + i}`);
  const description = [...filler(0, 60), 'eine', 'wasserdichte', 'Regenjacke', 'mit', 'Kapuze', ...filler(65, 35)].join(' ') + '.';
  const highlighter = new QueryHighlighter('regenjacke kapuze', options('de', { snippetWords: 10 }));
  const h = highlighter.product(product('Jacke', description));
  assert.equal(h.snippet, '…wort59 eine wasserdichte <mark>Regenjacke</mark> mit <mark>Kapuze</mark> wort65 wort66 wort67 wort68…');
  assert.ok(h.description!.startsWith('wort0 wort1'));
  assert.ok(h.description!.includes('<mark>Regenjacke</mark> mit <mark>Kapuze</mark>'));

  // The match near the start: no leading ellipsis; the earliest window of equals wins.
  const early = highlighter.product(product(null, 'Kapuze abnehmbar. ' + filler(0, 40).join(' ') + ' Kapuze'));
  assert.equal(early.snippet, '<mark>Kapuze</mark> abnehmbar. wort0 wort1 wort2 wort3 wort4 wort5 wort6 wort7…');
  // Near the end: the rest of the text, no trailing ellipsis.
  const late = highlighter.product(product(null, filler(0, 40).join(' ') + ' mit Kapuze.'));
  assert.equal(late.snippet, '…wort32 wort33 wort34 wort35 wort36 wort37 wort38 wort39 mit <mark>Kapuze</mark>.');
});

test('without a match the snippet is the first words; a short description whole', () => {
  const highlighter = new QueryHighlighter('zelt', options('de', { snippetWords: 3 }));
  assert.equal(highlighter.product(product(null, 'Eine leichte\n\nRegenjacke für Damen')).snippet, 'Eine leichte Regenjacke…');
  assert.equal(highlighter.product(product(null, '  Kurz & gut.  ')).snippet, 'Kurz &amp; gut.');
  assert.equal(highlighter.product(product(null, '')).snippet, null);
});

test('one highlighter serves many products alike (cached word matches)', () => {
  const highlighter = new QueryHighlighter('jacke', options('de'));
  for (let i = 0; i < 3; i++) assert.equal(highlighter.product(product(`Regenjacke ${i}`)).title, `<mark>Regenjacke</mark> ${i}`);
  for (let i = 0; i < 10_050; i++) highlighter.product(product(`w${i}`));
  assert.equal(highlighter.product(product('Regenjacke')).title, '<mark>Regenjacke</mark>');
});

test('markPrefix marks the typed prefix at the start of the value or of a word in it', () => {
  const tags = { preTag: '<mark>', postTag: '</mark>' };
  assert.equal(markPrefix('Adidas Originals', 'ori', tags), 'Adidas <mark>Ori</mark>ginals');
  assert.equal(markPrefix('Adidas Originals', 'ADI', tags), '<mark>Adi</mark>das Originals');
  assert.equal(markPrefix('Adidas Originals', 'adidas or', tags), '<mark>Adidas Or</mark>iginals');
  assert.equal(markPrefix('Über', 'uber', tags), '<mark>Über</mark>');
  assert.equal(markPrefix('U\u0308ber', 'ub', tags), '<mark>U\u0308b</mark>er');
  assert.equal(markPrefix('Straße', 'strass', tags), '<mark>Straß</mark>e');
  assert.equal(markPrefix('T-Shirt & Co', 'shi', { preTag: '[', postTag: ']' }), 'T-[Shi]rt &amp; Co');
  assert.equal(markPrefix('Adidas Originals', 'gin', tags), null);
  assert.equal(markPrefix('Adidas', 'puma', tags), null);
  assert.equal(markPrefix('Puma & <Co>', '', tags), 'Puma &amp; &lt;Co&gt;');
});
