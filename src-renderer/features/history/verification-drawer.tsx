// One verification in full: the fields a person reads, then the exact JSON the API returns.
import { useEffect, useState } from 'react';
import { Code, Drawer, Loader, Stack, Table, Text, Title } from '@mantine/core';
import type { Environment } from '../../../src-shared/schemas/common';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { call } from '../../client/bridge';
import { notifyError } from '../../app/notify';
import { VerificationResult } from '../verify/verification-result';

function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function VerificationDrawer({ id, environment, onClose }: { id: string | null; environment: Environment; onClose: () => void }) {
  const [record, setRecord] = useState<VerificationRecord | null>(null);

  useEffect(() => {
    setRecord(null);
    if (!id) return;
    let live = true;
    call('verify:get', { environment, id })
      .then((r) => live && setRecord(r))
      .catch((e: unknown) => {
        notifyError(e, 'Could not open the verification');
        if (live) onClose();
      });
    return () => {
      live = false;
    };
  }, [id, environment, onClose]);

  return (
    <Drawer opened={id !== null} onClose={onClose} position="right" size="xl" title="Verification" data-testid="verification-drawer">
      {!record ? (
        <Loader />
      ) : (
        <Stack>
          <VerificationResult record={record} />
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
