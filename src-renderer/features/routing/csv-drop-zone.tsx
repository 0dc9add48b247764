// Drop or pick a CSV file. In Electron the preload gives the file's local path and nothing is copied; in a
// browser the file is streamed to the service's data folder (POST /console/upload) with progress and cancel. A file
// that is clearly not text (file-sniff.ts) is refused here, by name, before anything is sent.
import { useRef, useState, type DragEvent } from 'react';
import { Alert, Button, FileButton, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconFileOff, IconFileUpload, IconX } from '@tabler/icons-react';
import { sniffFile } from './file-sniff';
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

interface Props {
  /** The file's path (local, or the upload's in the service's data folder) and its name. */
  onPath: (path: string, name: string) => void;
  /** Why the last file chosen cannot be used (refused here, or by the service's preview); null when none. */
  error: string | null;
  onError: (message: string | null) => void;
  disabled?: boolean;
}

export function CsvDropZone({ onPath, error, onError, disabled }: Props) {
  const [over, setOver] = useState(false);
  const [upload, setUpload] = useState<Upload | null>(null);
  const resetRef = useRef<() => void>(null);

  async function take(file: File | null) {
    resetRef.current?.();
    if (!file || upload) return;
    onError(null);
    const refused = await sniffFile(file).catch(() => null);
    if (refused) return onError(refused);
    const local = window.vc?.pathForFile?.(file);
    if (local) return onPath(local, file.name);
    const xhr = new XMLHttpRequest();
    setUpload({ name: file.name, percent: 0, xhr });
    try {
      const path = await uploadFile(file, (percent) => setUpload((u) => (u ? { ...u, percent } : u)), xhr);
      onPath(path, file.name);
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
      {error && !upload && (
        <Alert color="red" variant="light" icon={<IconFileOff size={16} />} mt="sm" withCloseButton onClose={() => onError(null)} data-testid="batch-file-refused" style={{ overflowWrap: 'anywhere' }}>
          {error}
        </Alert>
      )}
    </Paper>
  );
}
