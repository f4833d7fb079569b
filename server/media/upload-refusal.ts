import { httpErrorBody } from '../http/http-errors';

/**
 * An upload refused with a status and a sentence, by either upload route: `POST /api/media` answers
 * it once the request unwinds, and tus answers it as is (its `status_code` and `body`, the body in
 * the routes' one error shape).
 */
export class UploadRefusal extends Error {
  readonly body: string;
  constructor(
    readonly status_code: number,
    message: string,
  ) {
    super(message);
    this.body = JSON.stringify(httpErrorBody(status_code, message));
  }
}
