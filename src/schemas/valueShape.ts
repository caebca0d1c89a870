// The rules no schema states, checked over a whole request value before its schema: nesting
// depth, well-formed UTF-16, finite numbers, no reserved key (schemas/validate.ts).
import type { ErrorItem, Loc } from './errorItem.js';

/** How deep a request value may nest: the body (or query) is level 1, each object or array inside it one more. */
export const MAX_DEPTH = 32;
/** Keys refused anywhere in a value: they could reach an object's prototype wherever a key is assigned or looked up. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const SURROGATE = /[\uD800-\uDFFF]/;
/** A surrogate that is not half of a pair (String#isWellFormed is newer than our TypeScript lib). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNICODE_MSG = 'Input should be a valid string, unable to parse raw data as a unicode string';

interface Shape {
  /** Some string holds a character outside the BMP (a surrogate pair). */
  astral: boolean;
  errors: ErrorItem[];
}

/**
 * The rules no schema states, over the whole value, free-form objects included: nesting depth,
 * well-formed UTF-16 in every string and key (a lone surrogate breaks encodeURIComponent and
 * Redis), finite numbers, no reserved key. An explicit stack instead of recursion: a hostile
 * body of a few KB can nest thousands of levels.
 */
export function scanShape(value: unknown, root: string, checkStrings: boolean): Shape {
  const shape: Shape = { astral: false, errors: [] };
  if (plainShape(value, 1, checkStrings)) return shape;
  const stack: Frame[] = [{ value, key: root, parent: null, depth: 1 }];
  const fail = (frame: Frame, msg: string, type: string) => shape.errors.push({ loc: locOf(frame), msg, type });
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.parent && typeof frame.key === 'string') {
      if (checkStrings && LONE_SURROGATE.test(frame.key)) fail(frame, UNICODE_MSG, 'string_unicode');
      else if (RESERVED_KEYS.has(frame.key)) fail(frame, `Value error, the key '${frame.key}' is reserved`, 'value_error');
    }
    const item = frame.value;
    if (typeof item === 'string') {
      if (!checkStrings) continue;
      if (LONE_SURROGATE.test(item)) fail(frame, UNICODE_MSG, 'string_unicode');
      else if (!shape.astral && SURROGATE.test(item)) shape.astral = true;
      continue;
    }
    // JSON.parse reads 1e400 as Infinity, which JSON.stringify would store as null.
    if (typeof item === 'number' && !Number.isFinite(item)) fail(frame, 'Input should be a finite number', 'finite_number');
    if (typeof item !== 'object' || item === null) continue;
    if (frame.depth > MAX_DEPTH) {
      fail(frame, `Value error, nesting deeper than ${MAX_DEPTH} levels`, 'value_error');
      continue;
    }
    const depth = frame.depth + 1;
    // Pushed last to first, so that errors come out in document order.
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], key: i, parent: frame, depth });
    } else {
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (item as Record<string, unknown>)[keys[i]], key: keys[i], parent: frame, depth });
    }
  }
  return shape;
}

/**
 * True when scanShape would find nothing to report or note (no error, no surrogate at all): the
 * case of nearly every value, told without scanShape's frames (a bulk body's thousands of items
 * each made dozens). Recursion stops at MAX_DEPTH + 1 (false), so a deep value cannot overflow the
 * stack: scanShape then walks it.
 */
function plainShape(value: unknown, depth: number, checkStrings: boolean): boolean {
  if (typeof value === 'string') return !checkStrings || !SURROGATE.test(value);
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainShape(item, depth + 1, checkStrings)) return false;
    return true;
  }
  for (const key in value) {
    if (RESERVED_KEYS.has(key) || (checkStrings && SURROGATE.test(key))) return false;
    if (!plainShape((value as Record<string, unknown>)[key], depth + 1, checkStrings)) return false;
  }
  return true;
}

/** A value met by scanShape; its loc is built only when it is reported. */
interface Frame {
  value: unknown;
  key: string | number;
  parent: Frame | null;
  depth: number;
}

function locOf(frame: Frame): Loc {
  const loc: Loc = [];
  for (let f: Frame | null = frame; f; f = f.parent) loc.unshift(f.key);
  return loc;
}
