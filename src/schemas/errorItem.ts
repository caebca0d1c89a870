// The wire shape of one validation error (FastAPI/Pydantic): where, what, which rule.
export type Loc = (string | number)[];

/** One entry of a validation error list (FastAPI/Pydantic shape). */
export interface ErrorItem {
  loc: Loc;
  msg: string;
  type: string;
}
