/**
 * A PNG's pixels, decoded with node:zlib: 8-bit RGB or RGBA, not interlaced (what the image renderer writes).
 * Enough for tests to look at what was drawn where.
 */
import { inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA, four bytes a pixel, row after row. */
  rgba: Uint8Array;
}

export function decodePng(bytes: Uint8Array): DecodedPng {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const data: Uint8Array[] = [];
  while (offset < bytes.byteLength) {
    const length = view.getUint32(offset);
    const type = new TextDecoder().decode(bytes.subarray(offset + 4, offset + 8));
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(offset + 8);
      height = view.getUint32(offset + 12);
      const bitDepth = body[8];
      colorType = body[9]!;
      if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || body[12] !== 0)
        throw new Error(`unsupported PNG: bit depth ${bitDepth}, colour type ${colorType}, interlace ${body[12]}`);
    } else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let row = 0; row < height; row++) {
    const filter = raw[row * (stride + 1)]!;
    const line = raw.subarray(row * (stride + 1) + 1, (row + 1) * (stride + 1));
    for (let index = 0; index < stride; index++) {
      const left = index >= channels ? pixels[row * stride + index - channels]! : 0;
      const up = row > 0 ? pixels[(row - 1) * stride + index]! : 0;
      const upLeft = row > 0 && index >= channels ? pixels[(row - 1) * stride + index - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const estimate = left + up - upLeft;
        const [a, b, c] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
        predictor = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      pixels[row * stride + index] = (line[index]! + predictor) & 0xff;
    }
  }
  if (channels === 4) return { width, height, rgba: pixels };
  const rgba = new Uint8Array(width * height * 4);
  for (let pixel = 0; pixel < width * height; pixel++) {
    rgba.set(pixels.subarray(pixel * 3, pixel * 3 + 3), pixel * 4);
    rgba[pixel * 4 + 3] = 255;
  }
  return { width, height, rgba };
}

/** The pixels of `png` that are not white, as [x, y], outside every one of `boxes` (grown by `slack` pixels). */
export function inkOutside(
  png: DecodedPng,
  boxes: readonly { x: number; y: number; width: number; height: number }[],
  slack: number,
): [number, number][] {
  const found: [number, number][] = [];
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const at = (y * png.width + x) * 4;
      const [r, g, b] = [png.rgba[at]!, png.rgba[at + 1]!, png.rgba[at + 2]!];
      if (r >= 250 && g >= 250 && b >= 250) continue;
      const inside = boxes.some(
        (box) =>
          x >= box.x - slack && x < box.x + box.width + slack && y >= box.y - slack && y < box.y + box.height + slack,
      );
      if (!inside) found.push([x, y]);
    }
  }
  return found;
}
