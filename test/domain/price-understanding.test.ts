// Price phrases of a query read as a filter (domain/priceUnderstanding.ts): German and English,
// currency before or after, ranges, comparisons; a bare number without a currency or a price word
// stays text, and the rest of the query is kept as typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { understandPrices } from '../../src/domain/priceUnderstanding.js';

const read = (query: string) => {
  const { query: rest, phrases } = understandPrices(query);
  return { rest, phrases: phrases.map((p) => [p.words, p.filter]) };
};

test('an upper bound, German and English, currency after or before, as word or sign', () => {
  assert.deepEqual(read('rote damen regenjacke unter 100 euro'), { rest: 'rote damen regenjacke', phrases: [['unter 100 euro', { price_max: 100 }]] });
  assert.deepEqual(read('jacke bis 50 €'), { rest: 'jacke', phrases: [['bis 50 €', { price_max: 50 }]] });
  assert.deepEqual(read('Jacke BIS 50€'), { rest: 'Jacke', phrases: [['BIS 50€', { price_max: 50 }]] });
  assert.deepEqual(read('rain jacket under $80'), { rest: 'rain jacket', phrases: [['under $80', { price_max: 80 }]] });
  assert.deepEqual(read('boots below 99.90 dollars'), { rest: 'boots', phrases: [['below 99.90 dollars', { price_max: 99.9 }]] });
  assert.deepEqual(read('schuhe höchstens 39,95 €'), { rest: 'schuhe', phrases: [['höchstens 39,95 €', { price_max: 39.95 }]] });
  assert.deepEqual(read('sofa bis zu 1.000 eur'), { rest: 'sofa', phrases: [['bis zu 1.000 eur', { price_max: 1000 }]] });
});

test('a comparison that names the price needs no currency', () => {
  assert.deepEqual(read('kaffeemaschine günstiger als 30'), { rest: 'kaffeemaschine', phrases: [['günstiger als 30', { price_max: 30 }]] });
  assert.deepEqual(read('kaffeemaschine guenstiger als 30'), { rest: 'kaffeemaschine', phrases: [['guenstiger als 30', { price_max: 30 }]] });
  assert.deepEqual(read('headphones cheaper than 50'), { rest: 'headphones', phrases: [['cheaper than 50', { price_max: 50 }]] });
  assert.deepEqual(read('uhr teurer als 200'), { rest: 'uhr', phrases: [['teurer als 200', { price_min: 200 }]] });
});

test('a lower bound and ranges', () => {
  assert.deepEqual(read('ab 20 € t-shirt'), { rest: 't-shirt', phrases: [['ab 20 €', { price_min: 20 }]] });
  assert.deepEqual(read('laptop over £500'), { rest: 'laptop', phrases: [['over £500', { price_min: 500 }]] });
  assert.deepEqual(read('jacke 50-100€'), { rest: 'jacke', phrases: [['50-100€', { price_min: 50, price_max: 100 }]] });
  assert.deepEqual(read('zwischen 20 und 50 euro wanderschuhe'), { rest: 'wanderschuhe', phrases: [['zwischen 20 und 50 euro', { price_min: 20, price_max: 50 }]] });
  assert.deepEqual(read('shoes between 20 and 50'), { rest: 'shoes', phrases: [['between 20 and 50', { price_min: 20, price_max: 50 }]] });
  assert.deepEqual(read('shoes from 20 to 50 dollars'), { rest: 'shoes', phrases: [['from 20 to 50 dollars', { price_min: 20, price_max: 50 }]] });
  assert.deepEqual(read('lampe ab 20 € bis 40 €'), { rest: 'lampe', phrases: [['ab 20 € bis 40 €', { price_min: 20, price_max: 40 }]] });
});

test('no price without a currency or a price word; words inside other words stay; a reversed range is no range', () => {
  for (const query of ['jeans größe bis 50', 'book over 50 pages', 'iphone 13', 'bis 50', 'ab 20', 'fernseher 55 zoll', 'unterhemd 100 baumwolle', 'abend 20 €uro', '']) {
    const { rest, phrases } = read(query);
    assert.deepEqual(phrases, [], query);
    assert.equal(rest, query);
  }
  assert.deepEqual(read('100-50 €').phrases, []);
});

test('one bound of each kind: a second upper bound stays text', () => {
  assert.deepEqual(read('unter 100 € unter 50 €'), { rest: 'unter 50 €', phrases: [['unter 100 €', { price_max: 100 }]] });
});
