// BlueZ's libbluetooth headers, as Swift sees them. Only HCILinux imports this module.
#ifndef BLUEDOT_CBLUEZ_SHIM_H
#define BLUEDOT_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#endif
