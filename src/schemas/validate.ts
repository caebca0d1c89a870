// Request validation with FastAPI/Pydantic-v2-shaped errors.
// A compiled TypeBox validator is the fast gate; only when it fails does the schema walker
// below run to list every error with Pydantic's type names. The walker also produces the
// value the handler sees: defaults filled in, unknown keys dropped (Pydantic's default).
import { Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, ValueErrorType, type TypeCheck } from '@sinclair/typebox/compiler';
import { isDateTime, isUuid } from './common.js';
import { decimalIssue, isDecimalSchema } from './decimal.js';
import type { ErrorItem, Loc } from './errorItem.js';
import { scanShape } from './valueShape.js';

/** 'json': values arrive typed; 'text': values arrive as strings (query, path, form) and are parsed. */
export type Source = 'json' | 'text';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
function checker(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ErrorItem[] };

/** Where a value comes from: the first element of its errors' loc ('body', 'query', 'path', …), and how its values arrive ('json' unless given). */
export interface ValueOrigin {
  root: string;
  source?: Source;
  /**
   * The value was parsed from JSON text that holds no surrogate, escaped or encoded
   * (schemas/surrogateFreeJson.ts): none of its strings or keys can hold one, and their per-string checks
   * are skipped (a bulk body's thousands of items).
   */
  surrogateFree?: boolean;
}

export function validate<T>(schema: TSchema, input: unknown, origin: ValueOrigin): ValidationResult<T> {
  const value = origin.source === 'text' ? parseTextFields(schema, input) : input;
  const errors = validationErrors(schema, value, origin);
  return errors ? { ok: false, errors } : { ok: true, value: normalize(schema, value) as T };
}

/**
 * Every error of a value (null when it is valid), without producing the normalised value: for
 * callers that keep the value as sent (bulk items are stored as their JSON text).
 */
export function validationErrors(schema: TSchema, value: unknown, { root, source = 'json', surrogateFree = false }: ValueOrigin): ErrorItem[] | null {
  // TypeBox measures strings in UTF-16 code units, Pydantic (and the walker) in characters: where a
  // string holds a character outside the BMP the two differ, and the walker's count decides.
  const shape = scanShape(value, root, !surrogateFree);
  if (shape.errors.length === 0 && checker(schema).Check(value) && !shape.astral) return null;
  const walker = new ErrorWalker(schema, source);
  walker.walk(schema, value, [root]);
  const errors = walker.out;
  if (errors.length === 0 && shape.errors.length === 0) {
    // The walker covers every construct our schemas use; this is a guard, not a path we expect.
    const astral = shape.astral;
    for (const e of checker(schema).Errors(value)) {
      if (astral && (e.type === ValueErrorType.StringMaxLength || e.type === ValueErrorType.StringMinLength)) continue;
      errors.push({ loc: [root, ...e.path.split('/').filter(Boolean)], msg: e.message, type: 'value_error' });
    }
  }
  // A value the scan refused (1e400, a lone surrogate) is reported once, by the scan.
  const refused = new Set(shape.errors.map((e) => e.loc.join('\u0000')));
  const all = [...errors.filter((e) => !refused.has(e.loc.join('\u0000'))), ...shape.errors];
  return all.length === 0 ? null : all;
}

// ---- text sources: parse strings into the types the schema asks for --------------------------

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

function parseTextFields(schema: TSchema, input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !schema.properties) return input;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input as Record<string, unknown>)) {
    const prop = schema.properties[key] as TSchema | undefined;
    out[key] = prop && typeof raw === 'string' ? parseText(unwrapNullable(prop) ?? prop, raw) : raw;
  }
  return out;
}

function parseText(schema: TSchema, raw: string): unknown {
  switch (schema.type) {
    case 'integer':
      return /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'boolean': {
      const lower = raw.trim().toLowerCase();
      return TRUE.has(lower) ? true : FALSE.has(lower) ? false : raw;
    }
    default:
      return raw;
  }
}

// ---- schema helpers ---------------------------------------------------------------------------

/** For `T | null` returns T; otherwise undefined. */
function unwrapNullable(schema: TSchema): TSchema | undefined {
  if (!schema.anyOf) return undefined;
  const branches = schema.anyOf as TSchema[];
  if (branches.length !== 2) return undefined;
  const nonNull = branches.filter((b) => b[Kind] !== 'Null');
  return nonNull.length === 1 ? nonNull[0] : undefined;
}

function literalValues(schema: TSchema): unknown[] | undefined {
  if (!schema.anyOf) return undefined;
  const branches = schema.anyOf as TSchema[];
  return branches.every((b) => b[Kind] === 'Literal') ? branches.map((b) => b.const) : undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function enumMessage(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length === 1
    ? `Input should be ${quoted[0]}`
    : `Input should be ${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

// ---- the error walker -------------------------------------------------------------------------

/**
 * Lists every error of one value against its schema (`root`): how its values arrive (`source`),
 * and the errors found so far (`out`), stay the same across the walk.
 */
class ErrorWalker {
  readonly out: ErrorItem[] = [];

  constructor(
    private readonly root: TSchema,
    private readonly source: Source,
  ) {}

  walk(schema: TSchema, value: unknown, loc: Loc): void {
    // The whole value's own schema (not a branch of a union around it): schemas hold no cycles.
    const isRoot = schema === this.root;
    const push = (type: string, msg: string): void => {
      this.out.push({ loc, msg, type });
    };

    if (isDecimalSchema(schema)) {
      const issue = decimalIssue(schema, value);
      if (issue) push(issue.type, issue.msg);
      return;
    }
    if (schema.anyOf) {
      const inner = unwrapNullable(schema);
      if (inner) {
        if (value !== null) this.walk(inner, value, loc);
        return;
      }
      const literals = literalValues(schema);
      if (literals) {
        if (!literals.includes(value)) push('enum', enumMessage(literals));
        return;
      }
      // A general union: report the first branch's errors when no branch matches.
      const branches = schema.anyOf as TSchema[];
      if (!branches.some((b) => checker(b).Check(value))) this.walk(branches[0], value, loc);
      return;
    }
    if (schema[Kind] === 'Literal') {
      if (value !== schema.const) push('literal_error', enumMessage([schema.const]));
      return;
    }

    switch (schema.type) {
      case 'object': {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          if (isRoot) push('model_attributes_type', 'Input should be a valid dictionary or object to extract fields from');
          else push('dict_type', 'Input should be a valid dictionary');
          return;
        }
        const record = value as Record<string, unknown>;
        const required = new Set<string>(schema.required ?? []);
        for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) {
          if (record[key] === undefined) {
            if (required.has(key)) this.out.push({ loc: [...loc, key], msg: 'Field required', type: 'missing' });
            continue;
          }
          this.walk(prop, record[key], [...loc, key]);
        }
        const extra = schema.additionalProperties;
        if (extra && typeof extra === 'object') {
          for (const [key, item] of Object.entries(record)) {
            if (!(schema.properties && key in schema.properties)) this.walk(extra as TSchema, item, [...loc, key]);
          }
        } else if (extra === false) {
          // A field the body does not know is named (Pydantic's extra="forbid"): a client sending `sort_by` learns it is not read.
          for (const key of Object.keys(record)) {
            if (!(schema.properties && Object.hasOwn(schema.properties, key))) this.out.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
          }
        }
        // An object that names one of several fields (a sort entry).
        const given = Object.keys(record).filter((key) => record[key] !== undefined).length;
        if (schema.minProperties !== undefined && given < schema.minProperties) push('too_short', `Object should have at least ${plural(schema.minProperties, 'field')}`);
        if (schema.maxProperties !== undefined && given > schema.maxProperties) push('too_long', `Object should have at most ${plural(schema.maxProperties, 'field')}, not ${given}`);
        return;
      }
      case 'array': {
        if (!Array.isArray(value)) return push('list_type', 'Input should be a valid list');
        if (schema.maxItems !== undefined && value.length > schema.maxItems) {
          push('too_long', `List should have at most ${plural(schema.maxItems, 'item')} after validation, not ${value.length}`);
        }
        if (schema.minItems !== undefined && value.length < schema.minItems) {
          push('too_short', `List should have at least ${plural(schema.minItems, 'item')} after validation, not ${value.length}`);
        }
        value.forEach((item, i) => this.walk(schema.items as TSchema, item, [...loc, i]));
        return;
      }
      case 'string': {
        if (typeof value !== 'string') return push('string_type', 'Input should be a valid string');
        const length = [...value].length;
        if (schema.minLength !== undefined && length < schema.minLength) {
          return push('string_too_short', `String should have at least ${plural(schema.minLength, 'character')}`);
        }
        if (schema.maxLength !== undefined && length > schema.maxLength) {
          return push('string_too_long', `String should have at most ${plural(schema.maxLength, 'character')}`);
        }
        if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
          return push('string_pattern_mismatch', `String should match pattern '${schema.pattern}'`);
        }
        if (schema.format === 'uuid' && !isUuid(value)) return push('uuid_parsing', 'Input should be a valid UUID');
        if (schema.format === 'date-time' && !isDateTime(value)) return push('datetime_parsing', 'Input should be a valid datetime');
        return;
      }
      case 'integer':
      case 'number': {
        const isInt = schema.type === 'integer';
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          if (typeof value === 'string' && this.source === 'text') {
            return isInt
              ? push('int_parsing', 'Input should be a valid integer, unable to parse string as an integer')
              : push('float_parsing', 'Input should be a valid number, unable to parse string as a number');
          }
          return isInt ? push('int_type', 'Input should be a valid integer') : push('float_type', 'Input should be a valid number');
        }
        if (isInt && !Number.isInteger(value)) {
          return push('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
        }
        if (schema.minimum !== undefined && value < schema.minimum) {
          return push('greater_than_equal', `Input should be greater than or equal to ${schema.minimum}`);
        }
        if (schema.maximum !== undefined && value > schema.maximum) {
          return push('less_than_equal', `Input should be less than or equal to ${schema.maximum}`);
        }
        return;
      }
      case 'boolean':
        if (typeof value !== 'boolean') {
          return this.source === 'text' && typeof value === 'string'
            ? push('bool_parsing', 'Input should be a valid boolean, unable to interpret input')
            : push('bool_type', 'Input should be a valid boolean');
        }
        return;
      case 'null':
        if (value !== null) push('none_required', 'Input should be None');
        return;
      default:
        return; // Type.Any / Type.Unknown accept everything.
    }
  }
}

// ---- normalisation of a valid value -----------------------------------------------------------

/** What normalize needs of an object schema, worked out once per schema. */
interface ObjectPlan {
  props: [string, TSchema][];
  /** Keys the input may carry beyond `props` (additionalProperties is a schema). */
  extra: boolean;
}
const objectPlans = new WeakMap<TSchema, ObjectPlan>();
function objectPlan(schema: TSchema): ObjectPlan {
  let plan = objectPlans.get(schema);
  if (!plan) {
    plan = {
      props: Object.entries(schema.properties as Record<string, TSchema>),
      extra: Boolean(schema.additionalProperties && typeof schema.additionalProperties === 'object'),
    };
    objectPlans.set(schema, plan);
  }
  return plan;
}

/** A fresh copy of a default value (primitives are their own copy). */
function copyDefault(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value) && value.length === 0) return [];
  return structuredClone(value);
}

function normalize(schema: TSchema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (schema.anyOf) {
    const inner = unwrapNullable(schema);
    return inner ? normalize(inner, value) : value;
  }
  if (schema.type === 'object' && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (!schema.properties) return record; // free-form object: kept as sent
    const { props, extra } = objectPlan(schema);
    const out: Record<string, unknown> = {};
    for (const [key, prop] of props) {
      if (record[key] !== undefined) out[key] = normalize(prop, record[key]);
      else if (prop.default !== undefined) out[key] = copyDefault(prop.default);
    }
    if (extra) {
      for (const [key, item] of Object.entries(record)) if (!(key in out)) out[key] = item;
    }
    return out;
  }
  if (schema.type === 'array' && Array.isArray(value)) return value.map((item) => normalize(schema.items as TSchema, item));
  return value;
}
