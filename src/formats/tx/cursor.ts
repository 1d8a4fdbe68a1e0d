/** Little-endian reading of a TX file with every read bounds-checked: a damaged file is a 400, never a crash. */
import { InputError } from '../../errors.js';

/** A TX file this reader cannot take: the message says what, and how to convert the template instead. */
export class TxError extends InputError {
  constructor(detail: string) {
    super(`The TX document cannot be read here: ${detail} Open it in TX Text Control or ReportingCloud and save it as DOCX.`);
  }
}

/** A damaged file: a structure that does not add up. */
export const damaged = (what: string): TxError => new TxError(`it is damaged or truncated (${what}).`);

export class Cursor {
  constructor(
    private readonly bytes: Uint8Array,
    public at = 0,
    private readonly end = bytes.length,
  ) {}

  get left(): number {
    return this.end - this.at;
  }

  private need(n: number, what: string): number {
    if (n < 0 || this.at + n > this.end) throw damaged(`${what} runs past the end of its part`);
    const at = this.at;
    this.at += n;
    return at;
  }

  u8(what: string): number {
    return this.bytes[this.need(1, what)]!;
  }

  u16(what: string): number {
    const at = this.need(2, what);
    return this.bytes[at]! | (this.bytes[at + 1]! << 8);
  }

  i16(what: string): number {
    const value = this.u16(what);
    return value >= 0x8000 ? value - 0x10000 : value;
  }

  u32(what: string): number {
    const at = this.need(4, what);
    return (this.bytes[at]! | (this.bytes[at + 1]! << 8) | (this.bytes[at + 2]! << 16)) + this.bytes[at + 3]! * 0x1000000;
  }

  /** The next `n` bytes as their own cursor (a part with a known length). */
  part(n: number, what: string): Cursor {
    const at = this.need(n, what);
    return new Cursor(this.bytes, at, at + n);
  }

  /** The next `n` bytes, not consumed (a record kept as TX wrote it, for writing back). */
  peek(n: number, what: string): Uint8Array {
    if (n < 0 || this.at + n > this.end) throw damaged(`${what} runs past the end of its part`);
    return this.bytes.slice(this.at, this.at + n);
  }

  /** The bytes read since `start` (a position of this cursor), as a copy. */
  bytesFrom(start: number): Uint8Array {
    return this.bytes.slice(start, this.at);
  }

  /** The bytes from here to the part's end, not consumed. */
  rest(): Uint8Array {
    return this.bytes.subarray(this.at, this.end);
  }

  skip(n: number, what: string): void {
    this.need(n, what);
  }

  /** `n` UTF-16LE code units. */
  utf16(n: number, what: string): string {
    const at = this.need(n * 2, what);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, n * 2).toString('utf16le');
  }

  /** A NUL-terminated UTF-16LE string (the terminator read, not returned). */
  utf16z(what: string): string {
    let n = 0;
    while (this.at + n * 2 + 1 < this.end && (this.bytes[this.at + n * 2] !== 0 || this.bytes[this.at + n * 2 + 1] !== 0)) n++;
    const text = this.utf16(n, what);
    this.u16(what);
    return text;
  }

  /** Latin-1 text of a fixed field, up to its first NUL. */
  latin1(n: number, what: string): string {
    const at = this.need(n, what);
    const field = this.bytes.subarray(at, at + n);
    const nul = field.indexOf(0);
    return Buffer.from(field.subarray(0, nul < 0 ? n : nul)).toString('latin1');
  }

  /** The part must have been read exactly to its end: a length that does not add up is damage. */
  expectEnd(what: string): void {
    if (this.at !== this.end) throw damaged(`${this.end - this.at} bytes of ${what} were not accounted for`);
  }
}
