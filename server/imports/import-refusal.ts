/** An export refused with a sentence for the person who sent it (nothing of it is kept). */
export class ImportRefusal extends Error {
  override name = 'ImportRefusal';
  constructor(
    message: string,
    readonly status = 422,
  ) {
    super(message);
  }
}
