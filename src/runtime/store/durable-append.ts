import { open, type FileHandle } from 'node:fs/promises';

/**
 * Appends all of `bytes` (the file is opened in append mode) and waits until they are on stable storage.
 * `synced`: the file was opened with O_DSYNC, so each write is durable when it returns and no fsync is needed.
 */
export async function appendDurably(file: FileHandle, bytes: Buffer, synced = false): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
  if (!synced) await file.sync();
}

/** True when the file is empty or ends with a newline, i.e. an append starts on a fresh line. */
export async function endsWithNewline(file: FileHandle): Promise<boolean> {
  const { size } = await file.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/**
 * Makes a directory's entries durable (a new file's name, a new subdirectory). Windows cannot open a
 * directory for syncing and journals its metadata itself, so this is a no-op there.
 */
export async function syncDirectory(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const dir = await open(path, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
