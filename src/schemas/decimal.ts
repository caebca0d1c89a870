// The Decimal schema kind: a JSON number or a decimal string, optionally bounded. Registered with
// TypeBox so compiled validators enforce it; the error walker reports it in Pydantic's terms.
import { Kind, Type, TypeRegistry, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { DECIMAL_PATTERN, canonicalDecimal, compareDecimal, isDecimalString } from './decimalString.js';

export interface DecimalOptions {
  minimum?: number;
  maximum?: number;
  description?: string;
}

/** Why a value is not an acceptable decimal, as a Pydantic error; null when it is. */
export function decimalIssue(schema: DecimalOptions, value: unknown): { type: string; msg: string } | null {
  let canonical: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { type: 'finite_number', msg: 'Input should be a finite number' };
    canonical = canonicalDecimal(value);
  } else if (typeof value === 'string') {
    if (!isDecimalString(value)) return { type: 'decimal_parsing', msg: 'Input should be a valid decimal' };
    canonical = canonicalDecimal(value);
  } else {
    return { type: 'decimal_type', msg: 'Decimal input should be an integer, float, string or Decimal object' };
  }
  // Search and sorting read a decimal as a double: one beyond its range (a 400-digit price) would
  // read as Infinity and match no price range.
  if (!Number.isFinite(Number(canonical))) return { type: 'finite_number', msg: 'Input should be a finite number' };
  if (schema.minimum !== undefined && compareDecimal(canonical, canonicalDecimal(schema.minimum)) < 0) {
    return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${schema.minimum}` };
  }
  if (schema.maximum !== undefined && compareDecimal(canonical, canonicalDecimal(schema.maximum)) > 0) {
    return { type: 'less_than_equal', msg: `Input should be less than or equal to ${schema.maximum}` };
  }
  return null;
}

TypeRegistry.Set<DecimalOptions>('Decimal', (schema, value) => decimalIssue(schema, value) === null);

export const isDecimalSchema = (schema: TSchema): boolean => schema[Kind] === 'Decimal';

/** A number or decimal string in; the JSON Schema (anyOf) documents it in OpenAPI. */
export const Decimal = (options: DecimalOptions = {}): TUnsafe<number | string> =>
  Type.Unsafe<number | string>({
    [Kind]: 'Decimal',
    anyOf: [
      { type: 'number', ...(options.minimum !== undefined ? { minimum: options.minimum } : {}), ...(options.maximum !== undefined ? { maximum: options.maximum } : {}) },
      { type: 'string', pattern: DECIMAL_PATTERN },
    ],
    ...options,
  });
