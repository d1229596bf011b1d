/**
 * Splits Docker's multiplexed attach/exec stream (8-byte frame headers: stream type, 3 zero bytes,
 * size) into stdout and stderr without ever holding more than one partial frame.
 */
export class Demuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly stdout: (chunk: Buffer) => void,
    private readonly stderr: (chunk: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (data.length >= 8) {
      const size = data.readUInt32BE(4);
      const type = data[0];
      const available = Math.min(size, data.length - 8);
      if (available > 0) {
        const payload = data.subarray(8, 8 + available);
        (type === 2 ? this.stderr : this.stdout)(payload);
      }
      if (available < size) {
        // Rewrite the header so the rest of this frame is read next time.
        const header = Buffer.alloc(8);
        header[0] = type ?? 1;
        header.writeUInt32BE(size - available, 4);
        this.pending = header;
        return;
      }
      data = data.subarray(8 + size);
    }
    this.pending = Buffer.from(data);
  }
}
