import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Which process holds a TCP connection, read from /proc (Linux only): for telling which of several
 * server processes on this machine opened a connection that a stand-in receiver accepted. Read
 * while the connection is open; a closed one is in no process's table.
 */

/** The pids of a process group: a child started `detached` leads one, with every process it runs. */
export function processGroup(groupId: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (command) state ppid pgrp …": the command may hold spaces and parentheses.
      const [, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) === groupId) pids.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  return pids;
}

/**
 * The one of `pids` that holds the socket of the connection from local port `localPort` to remote
 * port `remotePort` (the sender's side of it), or undefined.
 */
export function socketOwner(localPort: number, remotePort: number, pids: readonly number[]): number | undefined {
  const inode = socketInode(localPort, remotePort);
  if (inode === undefined) return undefined;
  const target = `socket:[${inode}]`;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // Closed while the table was read.
      }
    }
  }
  return undefined;
}

function socketInode(localPort: number, remotePort: number): string | undefined {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …", addresses as HEX:PORT.
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const local = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16);
      const remote = Number.parseInt(fields[2]?.split(':')[1] ?? '', 16);
      if (local === localPort && remote === remotePort && fields[9] !== '0') return fields[9];
    }
  }
  return undefined;
}
