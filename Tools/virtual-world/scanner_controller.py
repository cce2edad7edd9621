"""A Bumble controller that reports advertising the way a real controller does.

Stock Bumble 0.0.236 (bumble/controller.py, Controller.on_advertising_pdu) reports every PDU twice (the second
as a scan response), always with RSSI -50, always as connectable, answers a legacy scan with extended reports
when it supports extended advertising, ignores the event masks and the duplicates filter, and its Reset changes
nothing. This subclass instead:

- reports each PDU once, with the event type the advertiser used (connectable, scannable, legacy);
- computes RSSI from the advertiser's and the receiver's virtual positions (radio.PathLoss);
- uses LE Advertising Report events after LE Set Scan Enable and LE Extended Advertising Report events after
  LE Set Extended Scan Enable (Core Spec 5.4, Vol 4, Part E, 7.7.65.2 and 7.7.65.13);
- honours the LE event mask (default after reset 0x1F, so extended reports need it set) and the Event Mask's
  LE Meta bit (61), which is off by default: a host must send Set Event Mask, as BlueZ does;
- filters duplicates while scanning when asked (same address, event type and data), until scan is re-enabled;
- resets scanning state and masks on HCI Reset;
- with extended=False, hides LE Extended Advertising in its LE features and rejects the extended commands as
  unknown, like a Bluetooth 4.x controller;
- advertises what its host asks with the legacy commands as a controller does: ADV_NONCONN_IND as well as ADV_IND
  (stock Bumble sends only ADV_IND), every interval in units of 0.625 ms (stock Bumble reads them as milliseconds).
  The extended commands are Bumble's own. Either way the PDUs leave from the controller's public address when the
  host asks for it, and every other controller on the link hears them (a site's receivers hear each other).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Callable

from bumble import hci, ll
from bumble.controller import Controller, LegacyAdvertiser

logger = logging.getLogger(__name__)

DEFAULT_EVENT_MASK = 0x00001FFFFFFFFFFF  # Core Spec 5.4, Vol 4, Part E, 7.3.1
DEFAULT_LE_EVENT_MASK = 0x000000000000001F  # Core Spec 5.4, Vol 4, Part E, 7.8.1
LE_META_EVENT_BIT = 61
LE_ADVERTISING_REPORT_BIT = 1  # subevent 0x02
LE_EXTENDED_ADVERTISING_REPORT_BIT = 12  # subevent 0x0D

# Extended advertising event properties (Core Spec 5.4, Vol 4, Part E, 7.8.53) and report event type bits
# (7.7.65.13) share their low bits: connectable 0, scannable 1, directed 2; legacy is 4 in both.
PROP_CONNECTABLE = 1 << 0
PROP_SCANNABLE = 1 << 1
PROP_DIRECTED = 1 << 2
PROP_LEGACY = 1 << 4

EXTENDED_COMMANDS = (
    hci.HCI_LE_SET_ADVERTISING_SET_RANDOM_ADDRESS_COMMAND,
    hci.HCI_LE_SET_EXTENDED_ADVERTISING_PARAMETERS_COMMAND,
    hci.HCI_LE_SET_EXTENDED_ADVERTISING_DATA_COMMAND,
    hci.HCI_LE_SET_EXTENDED_SCAN_RESPONSE_DATA_COMMAND,
    hci.HCI_LE_SET_EXTENDED_ADVERTISING_ENABLE_COMMAND,
    hci.HCI_LE_READ_MAXIMUM_ADVERTISING_DATA_LENGTH_COMMAND,
    hci.HCI_LE_READ_NUMBER_OF_SUPPORTED_ADVERTISING_SETS_COMMAND,
    hci.HCI_LE_REMOVE_ADVERTISING_SET_COMMAND,
    hci.HCI_LE_CLEAR_ADVERTISING_SETS_COMMAND,
    hci.HCI_LE_SET_EXTENDED_SCAN_PARAMETERS_COMMAND,
    hci.HCI_LE_SET_EXTENDED_SCAN_ENABLE_COMMAND,
)


class FaithfulLegacyAdvertiser(LegacyAdvertiser):
    """Legacy advertising as the host configured it: the PDU type it chose, at its interval."""

    def _on_timer_fired(self) -> None:
        self.send_advertising_data()
        self.timer_handle = asyncio.get_running_loop().call_later(
            max(self.advertising_interval_min, 0x20) * 0.625 / 1000.0, self._on_timer_fired)

    def send_advertising_data(self) -> None:
        if not self.enabled:
            return
        kinds = hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType
        if self.advertising_type == kinds.ADV_IND:
            pdu = ll.AdvInd(advertiser_address=self.address, data=bytes(self.advertising_data))
        elif self.advertising_type == kinds.ADV_NONCONN_IND:
            pdu = ll.AdvNonConnInd(advertiser_address=self.address, data=bytes(self.advertising_data))
        else:
            logger.warning("legacy advertising type %s is not simulated", self.advertising_type)
            return
        self.controller.send_advertising_pdu(pdu)


class ScannerController(Controller):
    """The controller BlueDot's scanner talks to. `rssi_for(address)` returns the RSSI for a sender, or None
    for a sender the receiver cannot hear."""

    def __init__(self, *args, rssi_for: Callable[[hci.Address], int | None], extended: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.rssi_for = rssi_for
        self.extended = extended
        self.supported_commands = set(self.supported_commands)
        if extended:
            self.supported_commands.update(EXTENDED_COMMANDS)
        else:
            self.le_features &= ~(
                hci.LeFeatureMask.LE_EXTENDED_ADVERTISING | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
            )
            self.supported_commands.difference_update(EXTENDED_COMMANDS)
            # Instance attributes shadow the handlers Controller.on_hci_command_packet looks up by name.
            for name in EXTENDED_HANDLERS:
                setattr(self, name, self._unknown_command)
        self.reports_sent = 0
        # A firmware that stops reporting without a word, its scan still on (`stick`), until a Reset cures it.
        self.stuck = False
        self.le_legacy_advertiser = FaithfulLegacyAdvertiser(self)
        self._reset_scan_state()

    # ---- state -------------------------------------------------------------------------------------------

    def _reset_scan_state(self) -> None:
        self.le_scan_enable = False
        self.filter_duplicates = False
        self.scan_mode: str | None = None  # "legacy" or "extended", from the enable command the host used
        self.seen: set[tuple[bytes, int, bytes]] = set()
        self.event_mask = DEFAULT_EVENT_MASK
        self.le_event_mask = DEFAULT_LE_EVENT_MASK

    def stick(self) -> None:
        """From now until the next Reset, report nothing while the scan stays enabled: the stall issue 45's scanner
        supervision must notice by the silence alone (world.py does it on SIGUSR1)."""
        self.stuck = True
        print("world: the scanner's controller is stuck until a Reset", file=sys.stderr, flush=True)

    def quiesce(self) -> None:
        """Scanning and advertising stop and the masks return to their defaults: a Reset's work, and what an
        unplugged controller does (world.py's SIGUSR2)."""
        self.stuck = False
        self._reset_scan_state()
        for advertising_set in self.advertising_sets.values():
            advertising_set.stop()
        self.advertising_sets.clear()
        self.le_legacy_advertiser.stop()

    def on_hci_reset_command(self, command: hci.HCI_Reset_Command) -> hci.HCI_StatusReturnParameters:
        self.quiesce()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_set_event_mask_command(self, command: hci.HCI_Set_Event_Mask_Command):
        self.event_mask = int.from_bytes(command.event_mask, "little")
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_set_scan_enable_command(self, command: hci.HCI_LE_Set_Scan_Enable_Command):
        result = super().on_hci_le_set_scan_enable_command(command)
        self._scan_enabled("legacy")
        return result

    def on_hci_le_set_extended_scan_enable_command(self, command: hci.HCI_LE_Set_Extended_Scan_Enable_Command):
        result = super().on_hci_le_set_extended_scan_enable_command(command)
        self._scan_enabled("extended")
        return result

    def _scan_enabled(self, mode: str) -> None:
        self.scan_mode = mode if self.le_scan_enable else None
        self.seen.clear()

    def _unknown_command(self, command: hci.HCI_Command):
        """The answer of a controller that does not implement the command."""
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.UNKNOWN_HCI_COMMAND_ERROR)

    # ---- reports -----------------------------------------------------------------------------------------

    def on_ll_advertising_pdu(self, packet: ll.AdvertisingPdu) -> None:
        if isinstance(packet, ll.AdvNonConnInd):
            self.on_advertising_pdu(packet)
        else:
            super().on_ll_advertising_pdu(packet)

    def _properties_of(self, pdu) -> int:
        """The advertising event properties the sender's controller was configured with."""
        if isinstance(pdu, ll.AdvInd):
            return PROP_LEGACY | PROP_CONNECTABLE | PROP_SCANNABLE
        if isinstance(pdu, ll.AdvNonConnInd):
            return PROP_LEGACY
        sender = self.link.find_le_controller(pdu.advertiser_address) if self.link else None
        for advertising_set in (sender.advertising_sets.values() if sender else ()):
            if advertising_set.address == pdu.advertiser_address and advertising_set.parameters is not None:
                if advertising_set.parameters.advertising_sid == pdu.sid:
                    return int(advertising_set.parameters.advertising_event_properties)
        return 0  # extended, non-connectable, non-scannable

    def on_advertising_pdu(self, pdu) -> None:
        if self.le_scan_enable and self.scan_mode is not None and not self.stuck:
            self._report(pdu)
        pending = self.pending_le_connection
        if pending is not None and pending.peer_address == pdu.advertiser_address:
            self.create_le_connection(pdu.advertiser_address)

    def _masked(self, le_bit: int) -> bool:
        return not (self.event_mask >> LE_META_EVENT_BIT) & 1 or not (self.le_event_mask >> le_bit) & 1

    def _report(self, pdu) -> None:
        rssi = self.rssi_for(pdu.advertiser_address)
        if rssi is None:
            return
        properties = self._properties_of(pdu)
        legacy = bool(properties & PROP_LEGACY)
        if self.filter_duplicates:
            key = (bytes(pdu.advertiser_address.address_bytes), properties, bytes(pdu.data))
            if key in self.seen:
                return
            self.seen.add(key)
        address = pdu.advertiser_address
        if self.scan_mode == "legacy":
            if not legacy or self._masked(LE_ADVERTISING_REPORT_BIT):
                return  # a legacy scan never sees extended PDUs
            event_type = _legacy_event_type(properties)
            report = hci.HCI_LE_Advertising_Report_Event.Report(
                event_type=event_type, address_type=address.address_type, address=address,
                data=bytes(pdu.data), rssi=rssi,
            )
            self.send_hci_packet(hci.HCI_LE_Advertising_Report_Event([report]))
        else:
            if self._masked(LE_EXTENDED_ADVERTISING_REPORT_BIT):
                return
            event_type = properties & (PROP_CONNECTABLE | PROP_SCANNABLE | PROP_DIRECTED | PROP_LEGACY)
            report = hci.HCI_LE_Extended_Advertising_Report_Event.Report(
                event_type=event_type, address_type=address.address_type, address=address,
                primary_phy=hci.Phy.LE_1M, secondary_phy=0 if legacy else hci.Phy.LE_1M,
                advertising_sid=0xFF if legacy else getattr(pdu, "sid", 0),
                tx_power=hci.HCI_LE_Extended_Advertising_Report_Event.TX_POWER_INFORMATION_NOT_AVAILABLE,
                rssi=rssi, periodic_advertising_interval=0, direct_address_type=0,
                direct_address=hci.Address.ANY, data=bytes(pdu.data),
            )
            self.send_hci_packet(hci.HCI_LE_Extended_Advertising_Report_Event([report]))
        self.reports_sent += 1


def _legacy_event_type(properties: int) -> int:
    """Legacy report event type (Core Spec 5.4, Vol 4, Part E, 7.7.65.2) for legacy advertising properties."""
    kinds = hci.HCI_LE_Advertising_Report_Event.EventType
    if properties & PROP_DIRECTED:
        return kinds.ADV_DIRECT_IND
    if properties & PROP_CONNECTABLE:
        return kinds.ADV_IND
    if properties & PROP_SCANNABLE:
        return kinds.ADV_SCAN_IND
    return kinds.ADV_NONCONN_IND


EXTENDED_HANDLERS = (
    "on_hci_le_set_advertising_set_random_address_command",
    "on_hci_le_set_extended_advertising_parameters_command",
    "on_hci_le_set_extended_advertising_data_command",
    "on_hci_le_set_extended_scan_response_data_command",
    "on_hci_le_set_extended_advertising_enable_command",
    "on_hci_le_read_maximum_advertising_data_length_command",
    "on_hci_le_read_number_of_supported_advertising_sets_command",
    "on_hci_le_remove_advertising_set_command",
    "on_hci_le_clear_advertising_sets_command",
    "on_hci_le_set_extended_scan_parameters_command",
    "on_hci_le_set_extended_scan_enable_command",
)
