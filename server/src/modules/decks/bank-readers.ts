import { Worker } from 'node:worker_threads';
import { ApiError } from '../../core/api-error.js';
import { type Bank, BankRefused } from './bank.js';
import type { ReadAnswer, ReadRequest } from './bank-reader-thread.js';
import type { BankFormat } from './read-bank.js';

/** The longest a file may wait for the reader and be read, together. Reading 2 MiB takes under 0.5 s. */
const BANK_READ_TIMEOUT_MS = 15_000;

/** A file the reader gave up on: it took longer than any file of 2 MiB should. */
export class BankReadTimedOut extends Error {}

interface Job {
  request: ReadRequest;
  resolve(bank: Bank): void;
  reject(error: unknown): void;
  deadline: NodeJS.Timeout;
}

/**
 * Imported files are read on a thread of their own, one at a time, so that a file built to be slow
 * (or a large one) costs its own request time and never the event loop every other request shares
 * (server/bench/RESULTS.md, "Issue 40"). The thread starts on the first import and does not keep
 * the process alive while idle. Every read is bounded: past BANK_READ_TIMEOUT_MS a read is abandoned (the thread
 * is ended and a new one starts for the next file) and a file still waiting is refused as busy.
 */
class BankReaderThread {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  private current: Job | undefined;
  private nextId = 1;

  read(format: BankFormat, source: Uint8Array, timeoutMs = BANK_READ_TIMEOUT_MS): Promise<Bank> {
    return new Promise<Bank>((resolve, reject) => {
      const job: Job = {
        request: { id: this.nextId++, format, source },
        resolve,
        reject,
        deadline: setTimeout(() => this.expire(job), timeoutMs),
      };
      job.deadline.unref();
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift() as Job;
    this.current = job;
    const thread = this.thread();
    // Held while it reads, so a process waiting on nothing but this read waits for it.
    thread.ref();
    thread.postMessage(job.request);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(threadUrl());
    worker.on('message', (answer: ReadAnswer) => this.answered(answer));
    worker.on('error', (error) => this.lost(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.lost(new Error('the bank-reader thread exited'));
    });
    // Idle, the thread must never keep the process alive (a server stops, a CLI ends): unref'd after
    // the listeners, since a `message` listener added later takes the port back into the event loop.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private answered(answer: ReadAnswer): void {
    const job = this.current;
    if (!job || job.request.id !== answer.id) return;
    this.finish(job);
    if ('bank' in answer) job.resolve(answer.bank);
    else if ('refused' in answer) job.reject(new BankRefused(answer.refused.message, answer.refused.problems));
    else job.reject(new Error(answer.failed));
  }

  /** The thread failed or ended under a read: that read fails, the next starts on a new thread. */
  private lost(error: unknown): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    const job = this.current;
    if (job) {
      this.finish(job);
      job.reject(error);
    }
  }

  private expire(job: Job): void {
    if (this.current !== job) {
      this.queue.splice(this.queue.indexOf(job), 1);
      job.reject(new ApiError('service_unavailable', 'Imports are busy: send the file again in a moment'));
      return;
    }
    this.lost(new BankReadTimedOut(`Reading the file took longer than ${BANK_READ_TIMEOUT_MS / 1000} s`));
  }

  private finish(job: Job): void {
    clearTimeout(job.deadline);
    if (this.current === job) this.current = undefined;
    if (this.queue.length === 0) this.worker?.unref();
    queueMicrotask(() => this.pump());
  }
}

/**
 * The thread's entry: the built `bank-reader-thread.js` beside the bundle (tsup.config.ts), or, when
 * the server runs from its TypeScript sources, a module that registers tsx first.
 */
function threadUrl(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('./bank-reader-thread-source.mjs', import.meta.url)
    : new URL('./bank-reader-thread.js', import.meta.url);
}

/** One reader thread per process: imports are rare, and each is limited per credential besides. */
export const bankReaders = new BankReaderThread();
