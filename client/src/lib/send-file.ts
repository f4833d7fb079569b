// A file's bytes sent as the raw body of one POST, with its progress (Verify a copy, a phone's chat
// export). XMLHttpRequest rather than fetch: only it reports an upload's progress, and these files
// can be gigabytes. The browser reads the file from disk as it sends it; the page never holds it.

export type TFileSend<T> = {
  /** What `read` made of the server's answer; rejects with its sentence, a network one, or `CancelledSend`. */
  result: Promise<T>;
  cancel: () => void;
};

export class CancelledSend extends Error {
  constructor() {
    super('The upload was cancelled.');
    this.name = 'CancelledSend';
  }
}

/**
 * POSTs `file` to `path` (`X-File-Name`: its name, URI-encoded). `read` is given the status and the
 * answer parsed as JSON (null when it was not) and returns the result or throws the person's sentence.
 */
export function sendFile<T>(
  path: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
  read: (status: number, body: unknown) => T,
): TFileSend<T> {
  const xhr = new XMLHttpRequest();
  const result = new Promise<T>((resolve, reject) => {
    xhr.open('POST', path);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('X-File-Name', encodeURIComponent(file.name));
    xhr.responseType = 'text';
    xhr.upload.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.addEventListener('load', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: `read` says what that means
      }
      try {
        resolve(read(xhr.status, body));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    xhr.addEventListener('error', () =>
      reject(new Error('The server could not be reached, or the connection dropped. Check the connection and try again.')),
    );
    xhr.addEventListener('abort', () => reject(new CancelledSend()));
    xhr.send(file);
  });
  return { result, cancel: () => xhr.abort() };
}
