import { Writable } from "node:stream";

/** What a suite printed, bounded: the first and last bytes, and how many there were in all. */
export interface CapturedOutput {
  bytes: number;
  truncated: boolean;
  head: string;
  tail: string;
}

/**
 * A Writable that never holds more than `headBytes + tailBytes`: it keeps the head, a rolling tail
 * and the byte count, and hands each chunk to `onChunk` while the head is still filling (so the log
 * gets the start of the output as it comes, bounded too). It always drains, so the source never stalls.
 */
export class BoundedOutput extends Writable {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
    private readonly onChunk?: (chunk: Buffer) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.take(chunk);
    done();
  }

  /** Adds a chunk synchronously (what _write does). */
  take(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const part = rest.subarray(0, this.headBytes - this.headSize);
      this.head.push(Buffer.from(part));
      this.headSize += part.length;
      this.onChunk?.(part);
      rest = rest.subarray(part.length);
    }
    if (rest.length === 0 || this.tailBytes === 0) return;
    this.tail.push(Buffer.from(rest.subarray(Math.max(0, rest.length - this.tailBytes))));
    this.tailSize += Math.min(rest.length, this.tailBytes);
    while (this.tailSize - (this.tail[0]?.length ?? 0) >= this.tailBytes)
      this.tailSize -= this.tail.shift()!.length;
  }

  /** The bytes seen so far: head, tail (after the head, possibly not contiguous) and the total. */
  captured(): CapturedOutput {
    const tail = Buffer.concat(this.tail);
    const tailKept = tail.subarray(Math.max(0, tail.length - this.tailBytes));
    return {
      bytes: this.total,
      truncated: this.total > this.headSize + tailKept.length,
      head: Buffer.concat(this.head).toString("utf8"),
      tail: tailKept.toString("utf8"),
    };
  }

  /** Everything kept, as one buffer (for small outputs such as a prep step's). */
  keptBuffer(): Buffer {
    return Buffer.concat([...this.head, ...this.tail]);
  }
}
