// A freshly created API key, shown once in full with a copy button; the service keeps only its hash.
import { Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function SecretKey({ label, value, testId = 'revealed-key' }: { label?: string; value: string; testId?: string }) {
  return (
    <Stack gap={4}>
      {label && (
        <Text size="sm" fw={600}>
          {label}
        </Text>
      )}
      <Group gap="xs" wrap="nowrap" align="center">
        <Code block data-testid={testId} style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="xs" variant={copied ? 'filled' : 'light'} color={copied ? 'green' : undefined} onClick={copy} leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

export const ONCE_ONLY_WARNING = 'Copy this key now and store it somewhere safe: you will not see it again. If you lose it, create a new key and revoke this one.';
export const ONCE_ONLY_WARNING_BOTH = 'Copy both keys now and store them somewhere safe: you will not see them again. A lost key cannot be recovered; create a new one under API keys and revoke the old one.';
