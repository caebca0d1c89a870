// Decimals of prices and ratings (DESIGN §4 "Products"): the spec pattern, the canonical form and
// the ordering used for the rating bounds. Pure functions, no stack.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DECIMAL_PATTERN, canonicalDecimal, compareDecimal, isDecimalString } from '../../src/schemas/decimalString.js';

describe('isDecimalString', () => {
  test('is the spec pattern', () => {
    assert.equal(DECIMAL_PATTERN, '^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$');
  });

  test('accepts plain, signed, dotted and zero-padded decimals', () => {
    for (const value of ['0', '+1', '-1', '-.5', '.5', '5.', '0001.10', '19.999999999999999', '+01.50', '-0', '-0.00', '007', '123456789012345678901234567890']) {
      assert.equal(isDecimalString(value), true, value);
    }
  });

  test('rejects exponents, repeated signs, bare signs and dots, blanks and garbage', () => {
    for (const value of ['1e5', '1E5', '--1', '+-1', '.', '', '+', '-', '-.', '+.', '..', '1.2.3', ' 1', '1 ', '1,5', 'abc', '0x10', 'NaN', 'Infinity']) {
      assert.equal(isDecimalString(value), false, JSON.stringify(value));
    }
  });
});

describe('canonicalDecimal', () => {
  test('strings: no plus, no redundant leading zeros, no trailing dot, no signed zero; fraction digits kept', () => {
    const cases: [string, string][] = [
      ['+01.50', '1.50'],
      ['.5', '0.5'],
      ['-.5', '-0.5'],
      ['5.', '5'],
      ['-0', '0'],
      ['+0', '0'],
      ['-0.00', '0.00'],
      ['-.0', '0.0'],
      ['007', '7'],
      ['000', '0'],
      ['0001.10', '1.10'],
      ['-007.250', '-7.250'],
      ['19.999999999999999', '19.999999999999999'],
      ['1.50', '1.50'],
      ['0.5', '0.5'],
      ['-3', '-3'],
      ['123456789012345678901234567890.000000000000000000001', '123456789012345678901234567890.000000000000000000001'],
    ];
    for (const [input, expected] of cases) assert.equal(canonicalDecimal(input), expected, input);
  });

  test('the canonical form is a fixed point and still matches the pattern', () => {
    for (const input of ['+01.50', '.5', '5.', '-0', '-0.00', '007', '-.5', '19.999999999999999']) {
      const once = canonicalDecimal(input);
      assert.equal(canonicalDecimal(once), once, input);
      assert.equal(isDecimalString(once), true, once);
    }
  });

  test('a string canonical already comes back as it is', () => {
    for (const input of ['0', '0.00', '0.5', '7', '19.99', '1234567890.000000001']) assert.equal(canonicalDecimal(input), input);
  });

  test('numbers: shortest round-trip text, never an exponent', () => {
    const cases: [number, string][] = [
      [1.5, '1.5'],
      [0, '0'],
      [-0, '0'],
      [10, '10'],
      [0.1, '0.1'],
      [19.99, '19.99'],
      [1e21, '1000000000000000000000'],
      [1.5e21, '1500000000000000000000'],
      [-1e21, '-1000000000000000000000'],
      [1e-7, '0.0000001'],
      [1.25e-7, '0.000000125'],
      [-2.5e-3, '-0.0025'],
      [123456.789, '123456.789'],
    ];
    for (const [input, expected] of cases) assert.equal(canonicalDecimal(input), expected, String(input));
  });
});

describe('compareDecimal', () => {
  const sign = (n: number) => Math.sign(n) + 0;

  test('orders canonical decimals, including negatives and different fraction lengths', () => {
    const cases: [string, string, number][] = [
      ['1', '2', -1],
      ['2', '1', 1],
      ['5', '5', 0],
      ['1.5', '1.50', 0],
      ['1.50', '1.5', 0],
      ['5', '5.000', 0],
      ['1.05', '1.5', -1],
      ['1.5', '1.05', 1],
      ['0.1', '0.09', 1],
      ['0.09', '0.1', -1],
      ['10', '9', 1],
      ['9.999', '10', -1],
      ['100', '99.99', 1],
      ['5', '5.01', -1],
      ['5.01', '5', 1],
      ['2', '2.0001', -1],
      ['-1', '1', -1],
      ['1', '-1', 1],
      ['-0.5', '0', -1],
      ['0', '-0.1', 1],
      ['-2', '-1', -1],
      ['-1', '-2', 1],
      ['-10', '-9', -1],
      ['-9', '-10', 1],
      ['-0.1', '-0.09', -1],
      ['-0.09', '-0.1', 1],
      ['-1.5', '-1.50', 0],
      ['-5.01', '-5', -1],
      ['0', '0.00', 0],
    ];
    for (const [a, b, expected] of cases) assert.equal(sign(compareDecimal(a, b)), expected, `${a} vs ${b}`);
  });

  test('sorts a mixed list like the numbers they stand for', () => {
    const values = ['10', '-0.5', '2.50', '-10', '0', '2.4999', '0.01', '-0.05', '100.1', '-100', '2.5001'];
    const sorted = [...values].sort(compareDecimal);
    assert.deepEqual(sorted, ['-100', '-10', '-0.5', '-0.05', '0', '0.01', '2.4999', '2.50', '2.5001', '10', '100.1']);
  });

  test('works on the canonical form of inputs that are not canonical yet', () => {
    assert.equal(compareDecimal(canonicalDecimal('+05.0'), canonicalDecimal('5')), 0);
    assert.equal(compareDecimal(canonicalDecimal('-.5'), canonicalDecimal('-0.50')), 0);
    assert.equal(sign(compareDecimal(canonicalDecimal('.5'), canonicalDecimal(0.49))), 1);
  });
});
