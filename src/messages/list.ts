/** A source of messages loaded whole before the run: per message, an index into an array. */
import type { PreparedContent } from "./content.js";
import { drawSeed, MessagePicker } from "./order.js";
import type {
  MessageContent,
  MessageSource,
  SourceKind,
  SourceOrder,
  TemplateVars,
} from "./source.js";

export class MessageList implements MessageSource {
  readonly count: number;
  readonly totalBytes: number;
  readonly longLines: number;
  readonly seed?: number;
  private readonly messages: readonly MessageContent[];
  private readonly picker: MessagePicker;

  constructor(
    readonly kind: SourceKind,
    prepared: readonly PreparedContent[],
    readonly order: SourceOrder = "sequential",
    seed?: number,
  ) {
    // The client needs only bytes and subject; long-line counts stay with the source.
    this.messages = prepared.map(({ bytes, subject }) =>
      subject === undefined ? { bytes } : { bytes, subject },
    );
    this.count = prepared.length;
    this.totalBytes = prepared.reduce((sum, m) => sum + m.bytes.length, 0);
    this.longLines = prepared.reduce((sum, m) => sum + m.longLines, 0);
    if (order === "random") this.seed = seed ?? drawSeed();
    this.picker = new MessagePicker(this.count, order, this.seed ?? 0);
  }

  content(seq: number, _vars?: TemplateVars): MessageContent {
    return this.messages[this.picker.index(seq)];
  }
}
