"""Byte-level checks of the beacon frames and the radio model: `python -m unittest test_frames`."""

from __future__ import annotations

import unittest

import frames
import radio


class FrameTests(unittest.TestCase):
    def test_ibeacon_layout(self) -> None:
        data = frames.ibeacon("f7826da6-4fa2-4e98-8024-bc5b71e0893e", 1, 7, -59)
        self.assertEqual(
            data.hex(),
            "020106" "1aff4c000215" "f7826da64fa24e988024bc5b71e0893e" "0001" "0007" "c5",
        )

    def test_eddystone_uid_layout(self) -> None:
        data = frames.eddystone_uid("edd1ebeac04e5defa017", "0123456789ab", -18)
        self.assertEqual(data.hex(), "020106" "0303aafe" "1716aafe" "00" "ee" "edd1ebeac04e5defa017" "0123456789ab" "0000")

    def test_eddystone_url_compression(self) -> None:
        self.assertEqual(frames.encode_url("https://www.example.com/"), bytes([0x01]) + b"example" + bytes([0x00]))
        self.assertEqual(frames.encode_url("http://a.org"), bytes([0x02]) + b"a" + bytes([0x08]))
        with self.assertRaises(frames.FrameError):
            frames.encode_url("ftp://example.com")
        with self.assertRaises(frames.FrameError):
            frames.encode_url("https://a-very-long-host-name.example/path")

    def test_eddystone_tlm_layout(self) -> None:
        data = frames.eddystone_tlm(2950, 22.25, 10, 1.5)
        self.assertEqual(data[-14:].hex(), "2000" "0b86" "1640" "0000000a" "0000000f")

    def test_altbeacon_layout(self) -> None:
        data = frames.altbeacon("2f234454-cf6d-4a0f-adf2-f4911ba9ffa6", 1, 2, -60, 0x0118, 0)
        self.assertEqual(data.hex(), "020106" "1bff1801beac" "2f234454cf6d4a0fadf2f4911ba9ffa6" "0001" "0002" "c4" "00")

    def test_out_of_range_power_is_named(self) -> None:
        with self.assertRaisesRegex(frames.FrameError, "measuredPower"):
            frames.ibeacon("f7826da6-4fa2-4e98-8024-bc5b71e0893e", 1, 7, -200)


class RadioTests(unittest.TestCase):
    def test_noiseless_model_is_exact(self) -> None:
        model = radio.PathLoss()
        self.assertEqual(model.rssi(-59, 2.0, 1.0), -59)
        self.assertEqual(model.rssi(-59, 2.0, 10.0), -79)
        self.assertEqual(model.rssi(-59, 2.0, 0.0), -39)  # clamped at 0.1 m
        self.assertEqual(model.rssi(-59, 2.0, 1e9), -127)  # HCI range

    def test_noise_is_seeded(self) -> None:
        a = radio.PathLoss(4.0, seed=7)
        b = radio.PathLoss(4.0, seed=7)
        self.assertEqual([a.rssi(-59, 2.0, 5.0) for _ in range(50)], [b.rssi(-59, 2.0, 5.0) for _ in range(50)])
        self.assertNotEqual(len(set(b.rssi(-59, 2.0, 5.0) for _ in range(50))), 1)  # noise is really applied
        samples = [a.rssi(-59, 2.0, 5.0) for _ in range(2000)]
        mean = sum(samples) / len(samples)
        self.assertAlmostEqual(mean, -73.0, delta=0.5)  # 4 dB sigma: the mean of 2000 is within 0.5 dB


if __name__ == "__main__":
    unittest.main()
