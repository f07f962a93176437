import { randomBytes, randomFillSync } from "node:crypto";

/** The base64url characters an id may begin with: a letter or a digit. */
const LEADING_CHARACTER = /^[A-Za-z0-9]/;

/**
 * Random bytes are drawn from the operating system 4 KiB at a time and handed out in order, each byte once: one
 * `randomBytes` call per id (a new buffer and a call into the system's generator each) was 1.2% of the server's
 * thread under a load of uploads, which take several ids each. Per thread: a worker has its own pool.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function freshBytes(count: number): Buffer {
  if (count > POOL_BYTES) return randomBytes(count);
  if (poolOffset + count > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/**
 * A short, URL-safe, unguessable id of `length` base64url characters whose first character is a letter or
 * a digit. base64url also has "-" and "_"; an id that begins with "-" reads as an option on a command line
 * (`servebench compare -abc…`) and as a formula to a spreadsheet (so CSV exports have to quote it), so new
 * ids never begin with one. Drawing again when the first character is one of them keeps every other
 * character uniform; it costs log2(64/62) ≈ 0.05 bits of the id's randomness.
 */
export function randomId(length: number): string {
  for (;;) {
    const id = freshBytes(Math.ceil((length * 3) / 4))
      .toString("base64url")
      .slice(0, length);
    if (LEADING_CHARACTER.test(id)) return id;
  }
}
