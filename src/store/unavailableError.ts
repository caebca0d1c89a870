// A request that Redis cannot serve right now but will shortly (a slot moving between masters, an
// index still reading the documents it arrived with): answered 503 with Retry-After, like an
// outage (isUnavailable), never with a partial answer.
export interface Unavailability {
  /** The tenant's slot is being migrated to this master (host:port). */
  migratingTo?: string;
  /** The tenant's slot has another master than the slot map said. */
  moved?: boolean;
}

export class UnavailableError extends Error {
  override readonly name = 'UnavailableError';

  constructor(
    message: string,
    readonly why: Unavailability = {},
  ) {
    super(message);
  }
}
