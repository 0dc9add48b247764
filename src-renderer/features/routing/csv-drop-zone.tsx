// Drop or pick a CSV file. In Electron the preload gives the file's local path and nothing is copied; in a
// browser the file is streamed to the service's data folder (POST /console/upload) with progress and cancel.
import { useRef, useState, type DragEvent } from 'react';
import { Button, FileButton, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconFileUpload, IconX } from '@tabler/icons-react';
import { notifyError } from '../../app/notify';
import { ConsoleError } from '../../client/bridge';

interface Upload {
  name: string;
  percent: number;
  xhr: XMLHttpRequest;
}

function uploadFile(file: File, onProgress: (percent: number) => void, xhr: XMLHttpRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    // Relative to /console/, where the page is served; the session cookie goes with it.
    xhr.open('POST', `upload?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress((e.loaded / e.total) * 100);
    };
    xhr.onload = () => {
      let body: { path?: unknown; code?: unknown; message?: unknown } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // fall through to the status check
      }
      if (xhr.status === 200 && typeof body.path === 'string') resolve(body.path);
      else
        reject(
          new ConsoleError({
            code: typeof body.code === 'string' ? body.code : 'UPLOAD_FAILED',
            message: typeof body.message === 'string' ? body.message : `The upload failed (HTTP ${xhr.status}).`,
          }),
        );
    };
    xhr.onerror = () => reject(new ConsoleError({ code: 'UPLOAD_FAILED', message: 'The upload was interrupted; nothing was kept. Try again.' }));
    xhr.onabort = () => reject(new ConsoleError({ code: 'UPLOAD_CANCELLED', message: 'The upload was cancelled.' }));
    xhr.send(file);
  });
}

export function CsvDropZone({ onPath, disabled }: { onPath: (path: string) => void; disabled?: boolean }) {
  const [over, setOver] = useState(false);
  const [upload, setUpload] = useState<Upload | null>(null);
  const resetRef = useRef<() => void>(null);

  async function take(file: File | null) {
    resetRef.current?.();
    if (!file || upload) return;
    const local = window.vc?.pathForFile?.(file);
    if (local) return onPath(local);
    const xhr = new XMLHttpRequest();
    setUpload({ name: file.name, percent: 0, xhr });
    try {
      const path = await uploadFile(file, (percent) => setUpload((u) => (u ? { ...u, percent } : u)), xhr);
      onPath(path);
    } catch (err) {
      if (!(err instanceof ConsoleError && err.code === 'UPLOAD_CANCELLED')) notifyError(err, `Could not upload ${file.name}`);
    } finally {
      setUpload(null);
    }
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setOver(false);
    if (!disabled) void take(e.dataTransfer.files[0] ?? null);
  }

  return (
    <Paper
      withBorder
      p="lg"
      radius="sm"
      data-testid="batch-drop-zone"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      style={{ borderStyle: 'dashed', borderWidth: 2, background: over ? 'var(--mantine-color-blue-light)' : undefined }}
    >
      {upload ? (
        <Stack gap="xs" data-testid="batch-upload">
          <Group justify="space-between">
            <Text size="sm">
              Uploading <b>{upload.name}</b> to the service… {upload.percent.toFixed(0)}%
            </Text>
            <Button size="xs" variant="light" color="red" leftSection={<IconX size={14} />} onClick={() => upload.xhr.abort()} data-testid="batch-upload-cancel">
              Cancel
            </Button>
          </Group>
          <Progress value={upload.percent} size="lg" aria-label="Upload progress" />
        </Stack>
      ) : (
        <Group justify="center" gap="md">
          <IconFileUpload size={28} stroke={1.5} />
          <Text size="sm">Drop a CSV file here, or</Text>
          <FileButton resetRef={resetRef} onChange={(f) => void take(f)} accept=".csv,text/csv,text/plain" disabled={disabled}>
            {(props) => (
              <Button {...props} variant="light" data-testid="batch-pick-file">
                Choose a file…
              </Button>
            )}
          </FileButton>
        </Group>
      )}
    </Paper>
  );
}
