export class HanzoError extends Error {
  constructor(code: string, message: string);
  readonly code: string;
}
