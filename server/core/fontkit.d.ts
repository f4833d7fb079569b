// fontkit (pdfkit's font engine) ships no types; only what server/export/render-pdf.ts uses.
declare module 'fontkit' {
  export function create(data: Buffer): { characterSet: number[] };
}
