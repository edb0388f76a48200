import { parentPort } from 'node:worker_threads';
import { BankRefused } from './bank.js';
import { type BankFormat, readBank } from './read-bank.js';

/**
 * The thread that reads imported files (bank-readers.ts starts it): a file of 2 MiB takes a reader
 * up to a few hundred milliseconds of CPU, which on the server's own thread every other request would
 * wait through. Each message is one file; the answer is its bank, or why it was refused.
 */
export interface ReadRequest {
  id: number;
  format: BankFormat;
  source: Uint8Array;
}

export type ReadAnswer =
  | { id: number; bank: Awaited<ReturnType<typeof readBank>> }
  | { id: number; refused: { message: string; problems: BankRefused['problems'] } }
  | { id: number; failed: string };

const port = parentPort;
if (!port) throw new Error('bank-reader-thread.ts runs as a worker thread');
port.on('message', async (request: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    answer = { id: request.id, bank: await readBank(request.format, request.source) };
  } catch (error) {
    answer =
      error instanceof BankRefused
        ? { id: request.id, refused: { message: error.message, problems: error.problems } }
        : { id: request.id, failed: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
