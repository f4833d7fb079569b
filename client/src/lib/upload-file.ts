import { tooLargeMessage, UPLOAD_LIMITS, uploadKindOf } from '../../../shared/media-limits';

export type TUploaded = {
  attachmentId: number;
  kind: 'image' | 'audio' | 'video' | 'document';
  mimeType: string;
  fileName: string;
  size: number;
};

/** The sentence for a file over its limit, before anything is uploaded; null when it fits. */
export function checkUploadSize(file: File): string | null {
  const kind = uploadKindOf(file.type || 'application/octet-stream');
  if (file.size === 0) return 'The file is empty.';
  return file.size > UPLOAD_LIMITS[kind] ? tooLargeMessage(kind, UPLOAD_LIMITS[kind]) : null;
}

/**
 * `POST /api/media` with upload progress (fetch has none). Resolves with the stored upload; rejects
 * with the server's sentence (413 says the limit) or a plain one when the network failed.
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<TUploaded> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/media');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = xhr.response as (TUploaded & { message?: string }) | null;
      if (xhr.status === 200 && body) return resolve(body);
      reject(new Error(body?.message ?? `The file could not be uploaded (HTTP ${xhr.status}).`));
    };
    xhr.onerror = () => reject(new Error('The file could not be uploaded: the connection failed. Try again.'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
