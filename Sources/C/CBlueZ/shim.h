// BlueZ's libbluetooth headers, as Swift sees them. Only SystemIO imports this module.
#ifndef BLUEDOT_CBLUEZ_SHIM_H
#define BLUEDOT_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

// The HCI ioctl request numbers are function-like macros (_IOW/_IOR), which Swift does not import.
// These constants carry their values across; the ioctl calls themselves stay in SystemIO/System.swift.

/// HCIDEVUP: bring an adapter up (argument: the device index).
static const unsigned long bluedot_HCIDEVUP = HCIDEVUP;
/// HCIGETDEVINFO: fill a struct hci_dev_info whose dev_id is set.
static const unsigned long bluedot_HCIGETDEVINFO = HCIGETDEVINFO;
/// TIOCSPTLCK: lock or unlock a pseudo-terminal's slave side (argument: int*).
static const unsigned long bluedot_TIOCSPTLCK = TIOCSPTLCK;
/// TIOCGPTN: the number of a pseudo-terminal's slave side, /dev/pts/N (argument: unsigned int*).
static const unsigned long bluedot_TIOCGPTN = TIOCGPTN;
#endif
