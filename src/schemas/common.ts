import { FormatRegistry, Type, type ObjectOptions, type TObject, type TOptional, type TProperties, type TSchema, type TLiteral, type TUnion, type TNull } from '@sinclair/typebox';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

export const isUuid = (value: string): boolean => UUID_RE.test(value);
// An offset can carry a 4-digit year out of range (0000-01-01T00:00+01:00 is in year -1): the
// instant itself must fall in years 0000–9999 so that it is stored and answered as a 4-digit year.
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
export const isDateTime = (value: string): boolean => {
  if (!DATE_TIME_RE.test(value)) return false;
  const at = Date.parse(value);
  return at >= FIRST_INSTANT && at <= LAST_INSTANT;
};

FormatRegistry.Set('uuid', isUuid);
FormatRegistry.Set('date-time', isDateTime);

export const Nullable = <T extends TSchema>(schema: T): TUnion<[T, TNull]> => Type.Union([schema, Type.Null()]);

/**
 * The partial update body of an object's properties: each optional and without its `default` (a
 * shallow copy of the property less that key), unknown keys refused. A field left out keeps its
 * stored value, so validation must not fill a create default in for it.
 */
export const Patch = <T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<{ [K in keyof T]: TOptional<T[K]> }> => {
  const optional: TProperties = {};
  for (const [key, property] of Object.entries(properties)) {
    const withoutDefault: TSchema = { ...property };
    delete withoutDefault.default;
    optional[key] = Type.Optional(withoutDefault);
  }
  return Type.Object(optional, { additionalProperties: false, ...options }) as TObject<{ [K in keyof T]: TOptional<T[K]> }>;
};

/** A closed set of strings; rendered as a JSON-schema enum in OpenAPI. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)) as unknown as TLiteral<T[number]>[], options);

export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', ...options });
export const DateTime = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });

/** `{detail: "..."}` — every error except validation. */
export const ErrorBody = Type.Object({ detail: Type.String() }, { $id: 'Error' });

/** FastAPI/Pydantic v2 validation error body. */
export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  },
  { $id: 'HTTPValidationError' },
);

/**
 * The largest count, order or priority a request may carry: a 32-bit integer, which every store
 * path (JSON, Lua numbers, ZSET scores, Redis LIMIT) holds exactly.
 */
export const MAX_INT = 2_147_483_647;

export const Pagination = {
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size' }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_INT, default: 0, description: 'Items to skip' }),
};

/** Where a document's vectors stand: computing, stored, given up on, or not wanted (embedding off). */
export const EMBEDDING_STATUSES = ['pending', 'ready', 'failed', 'skipped'] as const;
export type EmbeddingStatus = (typeof EMBEDDING_STATUSES)[number];
/** Why a document is skipped: embedding is off, or the model does not serve the document's language. */
export const EMBEDDING_SKIP_REASONS = ['embedding_off', 'language_not_served'] as const;
export type EmbeddingSkipReason = (typeof EMBEDDING_SKIP_REASONS)[number];
