// A prototype of the capture fix proposed in the bench report (NOT the engine's code): the merged
// copy keeps its tail as references to the stream's own chunks (no per-chunk memcpy into a ring),
// stdout/stderr are only counted (captureCommand reports their sizes, never their bytes), and finish()
// assembles head + marker + tail with one allocation. Same retain + preview as captureCommand.
import { spawn } from 'node:child_process';

const MARKER_RESERVE = 256;

class ZeroCopyHeadTail {
  constructor(cap) {
    this.headCap = Math.floor((cap - MARKER_RESERVE) / 2);
    this.tailCap = cap - MARKER_RESERVE - this.headCap;
    this.head = [];
    this.headLength = 0;
    this.tail = []; // chunk references, oldest first
    this.tailLength = 0;
    this.total = 0;
  }
  write(chunk) {
    this.total += chunk.length;
    let data = chunk;
    if (this.headLength < this.headCap) {
      const take = Math.min(this.headCap - this.headLength, data.length);
      this.head.push(Buffer.from(data.subarray(0, take))); // copied: the head is small and permanent
      this.headLength += take;
      data = data.subarray(take);
      if (data.length === 0) return;
    }
    this.tail.push(data);
    this.tailLength += data.length;
    // Drop whole chunks that are no longer needed to cover the last tailCap bytes.
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= this.tailCap) this.tailLength -= this.tail.shift().length;
  }
  finish(marker) {
    let tailSkip = Math.max(0, this.tailLength - this.tailCap);
    const kept = this.tailLength - tailSkip;
    const dropped = this.total - this.headLength - kept;
    if (dropped === 0) return { bytes: Buffer.concat([...this.head, ...this.tail]), complete: true, droppedBytes: 0 };
    const markerBytes = Buffer.from(marker(dropped, this.total));
    const out = Buffer.allocUnsafe(this.headLength + markerBytes.length + kept);
    let at = 0;
    for (const h of this.head) at += h.copy(out, at);
    const gapOffset = at;
    at += markerBytes.copy(out, at);
    for (const t of this.tail) {
      const from = Math.min(tailSkip, t.length);
      tailSkip -= from;
      at += t.copy(out, at, from);
    }
    // (Character-boundary trimming as in HeadTailBuffer.finish is omitted: O(1) work.)
    return { bytes: out, complete: false, droppedBytes: dropped, gapOffset };
  }
}

export async function prototypeCapture(command, cwd, store, core, { previewBytes, streamBytes }) {
  const shell = process.env.SHELL && /\/(ba|z|da)?sh$/.test(process.env.SHELL) ? process.env.SHELL : '/bin/sh';
  const merged = new ZeroCopyHeadTail(Math.min(streamBytes, store?.copyBytes ?? streamBytes));
  let outBytes = 0;
  let errBytes = 0;
  const code = await new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => {
      outBytes += c.length;
      merged.write(c);
    });
    child.stderr.on('data', (c) => {
      errBytes += c.length;
      merged.write(c);
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const copy = merged.finish(
    (d, t) =>
      `\n[tool-output-recall: ${d} bytes of ${t} were dropped here to stay within the cap; the copy keeps the head and the tail. complete=false]\n`,
  );
  const retained = await store.retain(copy.bytes, {
    tool: 'run_command',
    title: command,
    complete: copy.complete,
    droppedBytes: copy.droppedBytes,
    gapOffset: copy.gapOffset,
  });
  core.previewHeadTail(copy.bytes, {
    budgetBytes: previewBytes,
    kind: 'command',
    outputId: retained.outputId,
    copyComplete: copy.complete,
  });
  return {
    exitCode: code,
    stdout: { totalBytes: outBytes },
    stderr: { totalBytes: errBytes },
    recovery: 'retained',
    merged: { capturedBytes: copy.bytes.length },
  };
}
