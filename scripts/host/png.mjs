// Just enough of PNG to read back a screenshot Chromium took (8-bit RGB or RGBA, not interlaced), so
// the driver can tell a painted pane from an empty box by its pixels. No dependency: zlib does the work.
import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decodes a PNG into { width, height, channels, pixels } (pixels: rows of width × channels bytes). */
export function decodePng(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const data = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = colour === 6 ? 4 : colour === 2 ? 3 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0) {
        throw new Error(`unsupported PNG (bit depth ${depth}, colour type ${colour}, interlace ${interlace})`);
      }
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels] : 0;
      const b = up[x];
      const c = x >= channels ? up[x - channels] : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`);
      out[x] = (line[x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * How much of an image is "ink": pixels that differ clearly (by more than `tolerance` in any channel)
 * from the image's most common colour, its background. An empty box has (almost) none; a pane of
 * text has thousands.
 */
export function inkOf(png, tolerance = 40) {
  const { width, height, channels, pixels } = decodePng(png);
  const counts = new Map();
  for (let i = 0; i < pixels.length; i += channels) {
    const key = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let background = 0;
  let most = -1;
  for (const [key, n] of counts) if (n > most) [background, most] = [key, n];
  const [r, g, b] = [background >> 16, (background >> 8) & 0xff, background & 0xff];
  let ink = 0;
  for (let i = 0; i < pixels.length; i += channels) {
    if (Math.max(Math.abs(pixels[i] - r), Math.abs(pixels[i + 1] - g), Math.abs(pixels[i + 2] - b)) > tolerance) ink++;
  }
  const hex = `#${background.toString(16).padStart(6, '0')}`;
  return { width, height, inkPixels: ink, inkShare: ink / Math.max(1, width * height), background: hex, colours: counts.size };
}
