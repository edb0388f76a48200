/**
 * What a `format: 'file'` route's handler returns: the file's name and type, headers of its own
 * (`Pollkit-Deck-Skipped`), and the document, streamed in chunks (the transport sends them as the
 * client reads: http/contract-routes.ts).
 */
export interface FileDownload {
  filename: string;
  contentType: string;
  headers?: Readonly<Record<string, string>>;
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
}

/**
 * A success answered with another status than the route's `successStatus`: the route's
 * `alternateSuccess` (an import's dry run answers 200, not 201).
 */
export class WithStatus<T> {
  constructor(
    readonly status: number,
    readonly value: T,
  ) {}
}
