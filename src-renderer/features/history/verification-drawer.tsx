// One verification in full: the answer, the request exactly as it was submitted, who ran it and through which
// door, then every field and the exact JSON the API returns. A pending check updates by itself (live events).
import { useEffect, useState } from 'react';
import { Badge, Code, Drawer, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import type { Provenance, VerificationDetail } from '../../../src-shared/channels-history';
import type { Environment } from '../../../src-shared/schemas/common';
import { call } from '../../client/bridge';
import { useLiveVersion } from '../../app/live-store';
import { notifyError } from '../../app/notify';
import { VerificationResult } from '../verify/verification-result';

const ACTOR: Record<Provenance['actorType'], string> = { api_key: 'API key', user: 'User', owner: 'Owner' };
const DOOR: Record<Provenance['door'], string> = { api: 'API', console: 'Console', cli: 'CLI' };

function RunBy({ provenance }: { provenance: Provenance | null }) {
  if (!provenance) {
    return (
      <Text size="sm" c="dimmed" data-testid="record-provenance" data-door="">
        Not recorded (this check ran before the console kept who ran each check).
      </Text>
    );
  }
  return (
    <Group gap="xs" data-testid="record-provenance" data-door={provenance.door} data-actor={provenance.actorType}>
      <Text size="sm">
        {ACTOR[provenance.actorType]} <b data-testid="record-actor">{provenance.actorLabel ?? provenance.actorId ?? 'unknown'}</b>
      </Text>
      <Text size="sm" c="dimmed">
        through
      </Text>
      <Badge variant="light" data-testid="record-door">
        {DOOR[provenance.door]}
      </Badge>
    </Group>
  );
}

function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function VerificationDrawer({ id, environment, onClose }: { id: string | null; environment: Environment; onClose: () => void }) {
  const [detail, setDetail] = useState<VerificationDetail | null>(null);
  const record = detail?.record ?? null;
  const version = useLiveVersion(id ? `verification:${id}` : null);

  useEffect(() => {
    setDetail(null);
  }, [id, environment]);

  useEffect(() => {
    if (!id) return;
    let live = true;
    call('history:record', { environment, id })
      .then((r) => live && setDetail(r))
      .catch((e: unknown) => {
        notifyError(e, 'Could not open the verification');
        if (live) onClose();
      });
    return () => {
      live = false;
    };
  }, [id, environment, onClose, version]);

  return (
    <Drawer opened={id !== null} onClose={onClose} position="right" size="xl" title="Verification" data-testid="verification-drawer">
      {!record ? (
        <Loader />
      ) : (
        <Stack>
          <VerificationResult record={record} />
          <Title order={5}>Run by</Title>
          <RunBy provenance={detail?.provenance ?? null} />
          <Title order={5}>Request as submitted</Title>
          <Code block data-testid="record-request">
            {JSON.stringify(detail?.request ?? null, null, 2)}
          </Code>
          <Title order={5}>All fields</Title>
          <Table striped withTableBorder data-testid="verification-fields">
            <Table.Tbody>
              {Object.entries(record).map(([k, v]) => (
                <Table.Tr key={k}>
                  <Table.Td w={160}>
                    <Text size="sm" fw={600}>
                      {k}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{show(v)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Title order={5}>JSON</Title>
          <Code block data-testid="verification-json">
            {JSON.stringify(record, null, 2)}
          </Code>
        </Stack>
      )}
    </Drawer>
  );
}
