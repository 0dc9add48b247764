// Prices per service (what one live check costs): the table and an add/edit dialog. A service without a price
// is refused in live with SERVICE_PRICE_NOT_CONFIGURED, which the empty state says.
import { useState } from 'react';
import { Box, Button, Code, EmptyState, Group, Modal, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPencil, IconPlus, IconTag } from '@tabler/icons-react';
import { DataTable } from 'mantine-datatable';
import type { z } from 'zod';
import type { PriceSchema } from '../../../src-shared/schemas/billing';
import { ServiceKeySchema } from '../../../src-shared/schemas/billing';
import { call } from '../../client/bridge';
import { formatMoney, formatTime } from '../../app/format';
import { notifyError, notifySuccess } from '../../app/notify';
import { isCurrencyCode, minorToMajor, parseMajorAmount } from '../../../src-shared/money';
import { serviceLabel, serviceSelectData } from './service-catalogue';
import { useCan } from '../../app/app-info';

export type Price = z.infer<typeof PriceSchema>;

function PriceModal({ editing, defaultCurrency, known, onClose, onSaved }: { editing: Price | 'new' | null; defaultCurrency: string; known: string[]; onClose: () => void; onSaved: () => void }) {
  const existing = editing && editing !== 'new' ? editing : null;
  const [service, setService] = useState<string | null>(existing?.service ?? null);
  const [amount, setAmount] = useState(existing ? minorToMajor(existing.amount, existing.currency) : '');
  const [currency, setCurrency] = useState(existing?.currency ?? defaultCurrency);
  const [errors, setErrors] = useState<{ service?: string; amount?: string; currency?: string }>({});
  const [busy, setBusy] = useState(false);

  async function save() {
    const next: typeof errors = {};
    const svc = ServiceKeySchema.safeParse(service ?? '');
    if (!svc.success) next.service = 'Choose a service.';
    const cur = currency.trim().toUpperCase();
    if (!isCurrencyCode(cur)) next.currency = 'A three-letter ISO 4217 code, e.g. USD.';
    const parsed = parseMajorAmount(amount, next.currency ? 'USD' : cur);
    if (!parsed.ok) next.amount = parsed.message;
    setErrors(next);
    if (next.service || next.currency || !parsed.ok || !svc.success) return;
    setBusy(true);
    try {
      const p = await call('prices:set', { service: svc.data, amount: parsed.minor, currency: cur });
      notifySuccess(`${p.service} now costs ${formatMoney(p.amount, p.currency)} per live check.`, 'Price saved');
      onSaved();
    } catch (e) {
      notifyError(e, 'Could not save the price');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened={editing !== null} onClose={onClose} title={existing ? `Edit price of ${existing.service}` : 'Add a price'} centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        noValidate
      >
        <Stack gap="sm">
          <Select
            data-testid="price-service"
            label="Service"
            description="account:<COUNTRY>, phone:<COUNTRY>, identity:<type>, face, address or correspondents"
            searchable
            disabled={existing !== null}
            data={serviceSelectData(known)}
            value={service}
            onChange={(v) => {
              setService(v);
              setErrors((e) => ({ ...e, service: undefined }));
            }}
            error={errors.service}
            maxDropdownHeight={300}
          />
          <Group grow align="flex-start">
            <TextInput
              data-testid="price-amount"
              label="Price per check"
              description="In major units, e.g. 0.50"
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                setAmount(e.currentTarget.value);
                setErrors((x) => ({ ...x, amount: undefined }));
              }}
              error={errors.amount}
            />
            <TextInput
              data-testid="price-currency"
              label="Currency"
              description="The wallet's currency"
              maxLength={3}
              value={currency}
              onChange={(e) => {
                setCurrency(e.currentTarget.value.toUpperCase());
                setErrors((x) => ({ ...x, currency: undefined }));
              }}
              error={errors.currency}
            />
          </Group>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} data-testid="price-save">
              Save price
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export function PricesPanel({ prices, loading, defaultCurrency, onChanged }: { prices: Price[] | null; loading: boolean; defaultCurrency: string; onChanged: () => void }) {
  const can = useCan();
  const [editing, setEditing] = useState<Price | 'new' | null>(null);
  // Remount per target so the dialog always opens with that row's values.
  const modalKey = editing === null ? 'closed' : editing === 'new' ? 'new' : editing.service;
  return (
    <Paper withBorder p="md" data-testid="prices-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <div>
            <Title order={4}>Prices</Title>
            <Text size="sm" c="dimmed">
              What one live check of each service costs. A live check of a service without a price is refused (SERVICE_PRICE_NOT_CONFIGURED).
            </Text>
          </div>
          {can('prices:set') && (
            <Button leftSection={<IconPlus size={16} />} variant="light" onClick={() => setEditing('new')} data-testid="price-add">
              Add price
            </Button>
          )}
        </Group>
        {prices !== null && prices.length === 0 ? (
          <EmptyState
            data-testid="prices-empty"
            icon={<IconTag size={28} />}
            title="No prices yet"
            description="Set a price for each service you enable for live use, e.g. account:NG at 0.50."
          >
            <EmptyState.Actions>
              <Button onClick={() => setEditing('new')}>Add the first price</Button>
            </EmptyState.Actions>
          </EmptyState>
        ) : (
          <Box data-testid="prices-table">
            <DataTable<Price>
              withTableBorder
              borderRadius="sm"
              highlightOnHover
              minHeight={prices === null ? 140 : undefined}
              fetching={loading && prices === null}
              records={prices ?? []}
              idAccessor="service"
              noRecordsText="No prices"
              customRowAttributes={(p) => ({ 'data-testid': `price-row-${p.service}` })}
              columns={[
                { accessor: 'service', title: 'Service', render: (p) => <Code>{p.service}</Code> },
                { accessor: 'label', title: 'What', render: (p) => <Text size="sm">{serviceLabel(p.service)}</Text> },
                { accessor: 'amount', title: 'Price', textAlign: 'right', render: (p) => formatMoney(p.amount, p.currency) },
                { accessor: 'updatedAt', title: 'Updated', render: (p) => formatTime(p.updatedAt) },
                {
                  accessor: 'actions',
                  title: '',
                  textAlign: 'right',
                  render: (p) =>
                    can('prices:set') ? (
                      <Button size="xs" variant="subtle" leftSection={<IconPencil size={14} />} onClick={() => setEditing(p)} data-testid={`price-edit-${p.service}`}>
                        Edit
                      </Button>
                    ) : null,
                },
              ]}
            />
          </Box>
        )}
      </Stack>
      <PriceModal
        key={modalKey}
        editing={editing}
        defaultCurrency={defaultCurrency}
        known={(prices ?? []).map((p) => p.service)}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          onChanged();
        }}
      />
    </Paper>
  );
}
