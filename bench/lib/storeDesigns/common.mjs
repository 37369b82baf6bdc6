// What the store designs compared by bench/storeDesigns.mjs share, so only the database layout differs:
// the journal append that acknowledges a copy, chunking and deflate (the rule of src/core/store/chunks.ts),
// and the atomic write of a whole file (src/core/store/atomicWrite.ts).
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

export const CHUNK_BYTES = 64 * 1024;

/**
 * Deflate level 1, kept raw when that saves less than 1/8 (as chunks.ts). codec 0 raw, 1 deflate.
 * `probe`: after two chunks in a row that did not pay, only every 8th chunk is tried until one pays
 * (incompressible output costs 1/8 of the deflate work; today's store tries every chunk).
 */
export function encodeChunks(bytes, { probe = true } = {}) {
  const chunks = [];
  let misses = 0;
  for (let at = 0, index = 0; at < bytes.length; at += CHUNK_BYTES, index++) {
    const raw = bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
    if (probe && misses >= 2 && index % 8 !== 0) {
      chunks.push({ codec: 0, data: raw });
      continue;
    }
    const packed = deflateRawSync(raw, { level: 1, strategy: constants.Z_DEFAULT_STRATEGY });
    const pays = packed.length < raw.length - (raw.length >> 3);
    misses = pays ? 0 : misses + 1;
    chunks.push(pays ? { codec: 1, data: packed } : { codec: 0, data: raw });
  }
  return chunks;
}

export function decodeChunk(codec, data) {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return codec === 1 ? inflateRawSync(buffer) : buffer;
}

/** temp file, write, fsync, rename, fsync of the folder: what a checkpoint of today's store does per file. */
export function atomicWriteSync(file, data) {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  syncDirectory(path.dirname(file));
}

export function syncDirectory(dir) {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The journal: every retained copy is appended and fsync'd before it is acknowledged (identical in every design). */
export class Journal {
  constructor(file) {
    this.file = file;
    this.fd = openSync(file, 'a', 0o600);
    this.bytes = 0;
  }
  append(header, content) {
    const head = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(8);
    length.writeUInt32LE(head.length, 0);
    length.writeUInt32LE(content.length, 4);
    writeSync(this.fd, length);
    writeSync(this.fd, head);
    writeSync(this.fd, content);
    fsyncSync(this.fd);
    this.bytes += 8 + head.length + content.length;
  }
  /** After a checkpoint: the records are in the database files (a rotation and delete in the real store). */
  reset() {
    closeSync(this.fd);
    this.fd = openSync(this.file, 'w', 0o600);
    this.bytes = 0;
  }
  close() {
    closeSync(this.fd);
  }
}

/** Bytes [from, to) of a copy whose chunks `fetch(first, last)` returns as { idx, codec, data } rows. */
export function sliceFromChunks(from, to, fetch) {
  const first = Math.floor(from / CHUNK_BYTES);
  const last = Math.floor((to - 1) / CHUNK_BYTES);
  const parts = fetch(first, last)
    .sort((a, b) => a.idx - b.idx)
    .map((row) => decodeChunk(row.codec, row.data));
  const joined = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  return joined.subarray(from - first * CHUNK_BYTES, to - first * CHUNK_BYTES);
}
