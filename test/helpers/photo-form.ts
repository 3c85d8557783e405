import sharp from 'sharp';

/** A plain-coloured JPEG `width` × `height` pixels, made with sharp. */
export function solidJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#3a7' } })
    .jpeg()
    .toBuffer();
}

/** A multipart/form-data body as a browser or curl sends it: the fields, then the file as `file`. */
export async function photoForm(
  fields: Record<string, string>,
  file?: { bytes: Buffer; name: string; type: string },
): Promise<{ payload: Buffer; contentType: string }> {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  const encoded = new Response(data);
  return {
    payload: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') as string,
  };
}

/**
 * A multipart/form-data body written byte for byte, for what FormData cannot send: text fields whose
 * bytes are not UTF-8, or parts with their own headers (`Content-Type: text/plain; charset=…`).
 */
export function rawForm(parts: { name: string; bytes: Buffer; filename?: string; type?: string }[]): {
  payload: Buffer;
  contentType: string;
} {
  const boundary = '----agency-crm-test-boundary';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.type === undefined ? '' : `\r\nContent-Type: ${part.type}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}${type}\r\n\r\n`,
      ),
      part.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
