// Verify → Face: a Ghana Card number and a selfie, read in the browser (never uploaded elsewhere), previewed, and
// refused before sending when it is not a JPEG/PNG within the size limit.
import { useRef, type FormEvent } from 'react';
import { Button, FileButton, Group, Image, Paper, Stack, Text, TextInput } from '@mantine/core';
import { IconFaceId, IconPhoto, IconX } from '@tabler/icons-react';
import { FACE_MATCH_MESSAGES } from '../../../src-shared/errors';
import { getIdentityType } from '../../../src-shared/identity-rules';
import { serviceKey } from '../../../src-shared/services';
import { call } from '../../client/bridge';
import { useConsole } from '../../app/store';
import { formatBytes } from '../../app/format';
import { IMAGE_KIND_BYTES, imageKind } from '../../../src-shared/image-kind';
import { FixturePicker } from './fixture-picker';
import { useVerifyPrefill } from './prefill';
import { FormatWarning, GeneralError, SubmitRow, VerifyFormLayout } from './form-bits';
import {
  checkFace,
  EMPTY_FACE,
  FACE_FIELDS,
  FACE_LABELS,
  faceFormFromFixture,
  imageMimeOf,
  issuesToMessages,
  selfieFileProblem,
  stripDataUrl,
  toFaceRequest,
  type FaceForm,
  type FieldMessages,
} from './more-requests';
import { ResultPane } from './result-pane';
import { useSubmission } from './use-submission';
import { useDraft } from './drafts';
import { MAX_SELFIE_LABEL, SELFIE_MIME_TYPES } from '../../../src-shared/schemas/verification-more';
import { FIELD_MAX } from '../../../src-shared/schemas/verification-more';

/** The face check is against the Ghana Card: its number follows that document's rule. */
const GHANA_CARD = getIdentityType('ghana_card');

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('unreadable')));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

export function FaceTab() {
  const environment = useConsole((s) => s.environment);
  const [form, setForm] = useDraft<FaceForm>('face', 'form', EMPTY_FACE);
  const [errors, setErrors] = useDraft<FieldMessages>('face', 'errors', {});
  const [warning, setWarning] = useDraft<{ field: string; message: string } | null>('face', 'warning', null);
  const resetFile = useRef<() => void>(null);
  const s = useSubmission(environment, 'face');

  function set<K extends keyof FaceForm>(key: K, value: FaceForm[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined, general: undefined }));
    setWarning(null);
  }

  async function pick(file: File | null) {
    if (!file) return;
    const problem = selfieFileProblem(file);
    if (problem) {
      setErrors((e) => ({ ...e, selfieImage: problem }));
      resetFile.current?.();
      return;
    }
    try {
      // By content, as the service checks it: a renamed PDF or HEIC is refused here, not after a round trip.
      if (imageKind(new Uint8Array(await file.slice(0, IMAGE_KIND_BYTES).arrayBuffer())) === null) {
        setErrors((e) => ({ ...e, selfieImage: `${file.name} is not a JPEG or PNG image (its content is not, whatever its name says). Export the photo as JPEG or PNG.` }));
        resetFile.current?.();
        return;
      }
      const dataUrl = await readAsDataUrl(file);
      setForm((f) => ({ ...f, selfieImage: stripDataUrl(dataUrl), fileName: file.name }));
      setErrors((e) => ({ ...e, selfieImage: undefined }));
    } catch {
      setErrors((e) => ({ ...e, selfieImage: 'The file could not be read. Pick it again, or save it as a new JPEG or PNG.' }));
    }
    resetFile.current?.();
  }

  function fill(request: Record<string, unknown>) {
    setForm(faceFormFromFixture(request));
    setErrors({});
    setWarning(null);
    s.clear();
  }
  useVerifyPrefill('face', fill);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const check = checkFace(form);
    setErrors(check.errors);
    setWarning(check.warning);
    if (Object.values(check.errors).some(Boolean)) return s.clear();
    await s.submit(
      () => call('verify:face', { environment, request: toFaceRequest(form) }),
      (d) => setErrors(issuesToMessages(d, FACE_FIELDS, FACE_LABELS)),
    );
  }

  const preview = form.selfieImage ? `data:${imageMimeOf(form.selfieImage)};base64,${form.selfieImage}` : null;
  const sizeBytes = form.selfieImage ? Math.floor((form.selfieImage.length * 3) / 4) - (form.selfieImage.endsWith('==') ? 2 : form.selfieImage.endsWith('=') ? 1 : 0) : 0;
  return (
    <VerifyFormLayout
      title="Ghana Card facial check"
      formTestId="face-form"
      onSubmit={submit}
      picker={
        <FixturePicker
          kind="face"
          onPick={(f) => fill(f.request)}
        />
      }
      result={<ResultPane submission={s} placeholder="The result appears here. Pick a sandbox fixture to try each facial-check answer." />}
    >
      <div>
        <TextInput
          data-testid="face-id-number"
          label="Ghana Card number"
          description={GHANA_CARD?.hint}
          placeholder={GHANA_CARD?.sample.idNumber}
          required
          maxLength={FIELD_MAX.idNumber}
          value={form.idNumber}
          onChange={(e) => set('idNumber', e.currentTarget.value)}
          error={errors['idNumber']}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {warning?.field === 'idNumber' && <FormatWarning text={warning.message} />}
      </div>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Selfie <span style={{ color: 'var(--mantine-color-error)' }}>*</span>
        </Text>
        <Text size="xs" c="dimmed">
          A JPEG or PNG photo of the card holder's face, at most {MAX_SELFIE_LABEL}. It is read on this computer and sent only with the check.
        </Text>
        <Group gap="sm" align="flex-start">
          <Paper
            withBorder
            w={120}
            h={120}
            style={{ display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden' }}
            data-testid="face-preview"
          >
            {preview ? <Image src={preview} alt="Selfie preview" fit="contain" w={118} h={118} /> : <IconPhoto size={36} color="var(--mantine-color-gray-5)" />}
          </Paper>
          <Stack gap={6}>
            <FileButton resetRef={resetFile} onChange={(f) => void pick(f)} accept={SELFIE_MIME_TYPES.join(',')}>
              {(props) => (
                <Button {...props} variant="default" leftSection={<IconPhoto size={16} />} data-testid="face-pick-image">
                  {form.selfieImage ? 'Choose another image' : 'Choose image'}
                </Button>
              )}
            </FileButton>
            {form.selfieImage && (
              <>
                <Text size="xs" c="dimmed" data-testid="face-file-name">
                  {form.fileName} · {formatBytes(sizeBytes)}
                </Text>
                <Button size="xs" variant="subtle" color="gray" leftSection={<IconX size={12} />} onClick={() => set('selfieImage', '')}>
                  Remove
                </Button>
              </>
            )}
          </Stack>
        </Group>
        {errors['selfieImage'] && (
          <Text size="xs" c="red" data-testid="face-image-error">
            {errors['selfieImage']}
          </Text>
        )}
      </Stack>
      <Text size="xs" c="dimmed">
        A failed match is <b>failed</b> with FACE_MATCH_FAILED and one of: {FACE_MATCH_MESSAGES.join(' · ')}
      </Text>
      <GeneralError text={errors['general'] ?? errors['country']} />
      <SubmitRow environment={environment} busy={s.busy} label="Verify face" icon={<IconFaceId size={16} />} testId="face-submit" service={serviceKey.face} />
    </VerifyFormLayout>
  );
}
