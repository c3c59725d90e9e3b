/**
 * A date and time, typed in the locale's own order or picked from a calendar and quick picks (Today,
 * Tomorrow, Next week, No date), in the person's language and time zone (docs/decisions/0270).
 * React Aria's DatePicker keeps the field's segments, the calendar's grid, focus and the popover;
 * it is loaded only with what uses it (the card dialog), never in the first load.
 */
import { parseAbsolute, Time, toCalendarDateTime, today, toZoned, type ZonedDateTime } from '@internationalized/date';
import { CalendarDays, ChevronLeft, ChevronRight } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import {
  Button,
  Calendar,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DatePicker,
  DateSegment,
  Dialog,
  Group,
  Heading,
  I18nProvider,
  Label,
  Popover,
} from 'react-aria-components';
import { currentLocale, currentTimeZone, formatDate } from '../i18n/messages.ts';
import { dateText } from './dateStrings.ts';
import './datePicker.css';

export interface TimeOfDay {
  hour: number;
  minute: number;
}

/** An ISO moment as a date and time in `zone`, and back. */
export const zonedOf = (iso: string | null, zone: string): ZonedDateTime | null => (iso ? parseAbsolute(iso, zone) : null);
export const isoOf = (value: ZonedDateTime | null): string | null => (value ? value.toDate().toISOString() : null);

/** The day `days` from today in `zone`, at the time of `kept` if there is one, else at `time`. */
export function dayFromToday(days: number, zone: string, kept: ZonedDateTime | null, time: TimeOfDay): ZonedDateTime {
  const at = kept ? new Time(kept.hour, kept.minute) : new Time(time.hour, time.minute);
  return toZoned(toCalendarDateTime(today(zone).add({ days }), at), zone);
}

const QUICK_PICKS = [
  { days: 0, word: () => dateText.today },
  { days: 1, word: () => dateText.tomorrow },
  { days: 7, word: () => dateText.nextWeek },
] as const;

export function DateTimePicker(props: {
  label: string;
  value: string | null;
  onChange: (iso: string | null) => void;
  /** The time a day picked without one gets (a due date: the end of the working day). */
  defaultTime: TimeOfDay;
  autoFocus?: boolean;
}) {
  const zone = currentTimeZone();
  const [draft, setDraft] = useState(() => zonedOf(props.value, zone));
  const [open, setOpen] = useState(false);
  const [portal, setPortal] = useState<Element | undefined>();
  const own = useRef<HTMLDivElement>(null);
  // a change from elsewhere (another person, a quick pick's save) shows unless the person is typing here
  useEffect(() => {
    sent.current = undefined;
    if (!own.current?.contains(document.activeElement)) setDraft(zonedOf(props.value, zone));
  }, [props.value, zone]);
  // inside a modal <dialog> the popover must live in it, or the page behind (inert) would hold it
  useEffect(() => setPortal(own.current?.closest('dialog') ?? undefined), []);

  /** Saves a value that differs from the one shown; the field keeps partial typing until it is whole. */
  const sent = useRef<string | null | undefined>(undefined);
  const commit = (next: ZonedDateTime | null) => {
    const iso = isoOf(next);
    if (iso === props.value || iso === sent.current) return;
    sent.current = iso;
    props.onChange(iso);
  };
  // what was typed is saved even when the dialog closes (Escape) before the field was left
  const unsaved = useRef(() => {});
  unsaved.current = () => commit(draft);
  useEffect(() => () => unsaved.current(), []);
  const pick = (next: ZonedDateTime | null) => {
    setDraft(next);
    commit(next);
    setOpen(false);
  };

  return (
    <I18nProvider locale={currentLocale()}>
      <DatePicker
        ref={own}
        className="date-picker"
        value={draft}
        granularity="minute"
        hideTimeZone
        autoFocus={props.autoFocus ?? false}
        placeholderValue={dayFromToday(0, zone, null, props.defaultTime)}
        isOpen={open}
        onOpenChange={setOpen}
        onChange={(next) => {
          setDraft(next);
          // a day chosen in the calendar is saved at once; typing is saved when the field is left
          if (open) commit(next);
        }}
        onBlur={() => commit(draft)}
      >
        <Label className="date-picker-label">{props.label}</Label>
        <Group className="date-picker-field" onKeyDown={(event) => event.key === 'Enter' && commit(draft)}>
          <DateInput className="date-picker-input">{(segment) => <DateSegment segment={segment} className="date-segment" />}</DateInput>
          <Button className="date-picker-button">
            <CalendarDays size={16} aria-hidden />
          </Button>
        </Group>
        <Popover className="date-picker-popover" placement="bottom start" UNSTABLE_portalContainer={portal}>
          <Dialog className="date-picker-dialog" aria-label={props.label}>
            <div className="quick-picks" role="group" aria-label={dateText.quickPicks}>
              {QUICK_PICKS.map(({ days, word }) => {
                const day = dayFromToday(days, zone, draft, props.defaultTime);
                return (
                  <button key={days} type="button" onClick={() => pick(day)}>
                    <span>{word()}</span>
                    <span className="muted">{formatDate(day.toDate(), { weekday: 'short', day: 'numeric', month: 'short' })}</span>
                  </button>
                );
              })}
              <button type="button" onClick={() => pick(null)}>
                {dateText.noDate}
              </button>
            </div>
            <Calendar className="date-picker-calendar">
              <header>
                <Button slot="previous" className="icon-button">
                  <ChevronLeft size={16} aria-hidden className="flip-rtl" />
                </Button>
                <Heading />
                <Button slot="next" className="icon-button">
                  <ChevronRight size={16} aria-hidden className="flip-rtl" />
                </Button>
              </header>
              <CalendarGrid>{(date) => <CalendarCell date={date} className="calendar-cell" />}</CalendarGrid>
            </Calendar>
          </Dialog>
        </Popover>
      </DatePicker>
    </I18nProvider>
  );
}
