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
