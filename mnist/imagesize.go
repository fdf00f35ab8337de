package mnist

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ImageSize reads an image file's format and dimensions from its first bytes (a few KB for PNG, GIF, BMP and
// WebP; JPEG's size may follow large metadata, so give it what there is, up to the whole file), without
// decoding it: the page refuses an image too large to decode before the browser spends seconds and gigabytes
// on it. It reads PNG, JPEG, GIF, WebP and BMP.
func ImageSize(head []byte) (w, h int, format string, err error) {
	switch {
	case len(head) == 0:
		return 0, 0, "", errors.New("the file is empty")
	case len(head) >= 24 && string(head[:8]) == "\x89PNG\r\n\x1a\n":
		if string(head[12:16]) != "IHDR" {
			return 0, 0, "png", errors.New("a damaged PNG (no IHDR header)")
		}
		return int(binary.BigEndian.Uint32(head[16:])), int(binary.BigEndian.Uint32(head[20:])), "png", checkSize(int64(binary.BigEndian.Uint32(head[16:])), int64(binary.BigEndian.Uint32(head[20:])))
	case len(head) >= 10 && (string(head[:6]) == "GIF87a" || string(head[:6]) == "GIF89a"):
		w, h = int(binary.LittleEndian.Uint16(head[6:])), int(binary.LittleEndian.Uint16(head[8:]))
		return w, h, "gif", checkSize(int64(w), int64(h))
	case len(head) >= 26 && string(head[:2]) == "BM":
		w, h = int(int32(binary.LittleEndian.Uint32(head[18:]))), int(int32(binary.LittleEndian.Uint32(head[22:])))
		if h < 0 { // a top-down bitmap
			h = -h
		}
		return w, h, "bmp", checkSize(int64(w), int64(h))
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return webpSize(head)
	case len(head) >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF:
		return jpegSize(head)
	}
	return 0, 0, "", errors.New("not an image this page reads (PNG, JPEG, GIF, WebP or BMP)")
}

func checkSize(w, h int64) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("a damaged image (it says it is %d×%d pixels)", w, h)
	}
	return nil
}

func webpSize(b []byte) (int, int, string, error) {
	if len(b) < 30 {
		return 0, 0, "webp", errors.New("a damaged WebP (cut short)")
	}
	var w, h int
	switch string(b[12:16]) {
	case "VP8 ": // lossy: the frame header after the start code
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, "webp", errors.New("a damaged WebP (no VP8 start code)")
		}
		w, h = int(binary.LittleEndian.Uint16(b[26:])&0x3fff), int(binary.LittleEndian.Uint16(b[28:])&0x3fff)
	case "VP8L": // lossless: 14-bit width−1 and height−1 after the signature byte
		if b[20] != 0x2f {
			return 0, 0, "webp", errors.New("a damaged WebP (no VP8L signature)")
		}
		v := binary.LittleEndian.Uint32(b[21:])
		w, h = int(v&0x3fff)+1, int((v>>14)&0x3fff)+1
	case "VP8X": // extended: 24-bit width−1 and height−1
		w = int(uint32(b[24])|uint32(b[25])<<8|uint32(b[26])<<16) + 1
		h = int(uint32(b[27])|uint32(b[28])<<8|uint32(b[29])<<16) + 1
	default:
		return 0, 0, "webp", errors.New("a WebP of a kind this page does not read")
	}
	return w, h, "webp", checkSize(int64(w), int64(h))
}

// jpegSize walks the JPEG's segments to its start-of-frame marker.
func jpegSize(b []byte) (int, int, string, error) {
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return 0, 0, "jpeg", errors.New("a damaged JPEG (a segment does not start with a marker)")
		}
		marker := b[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		if marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 {
			i += 2
			continue
		}
		length := int(binary.BigEndian.Uint16(b[i+2:]))
		if length < 2 {
			return 0, 0, "jpeg", errors.New("a damaged JPEG (a segment of length < 2)")
		}
		// Start of frame: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
		if marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
			if i+9 > len(b) {
				break
			}
			h, w := int(binary.BigEndian.Uint16(b[i+5:])), int(binary.BigEndian.Uint16(b[i+7:]))
			return w, h, "jpeg", checkSize(int64(w), int64(h))
		}
		if marker == 0xD9 || marker == 0xDA { // end of image, or scan data before any frame header
			break
		}
		i += 2 + length
	}
	return 0, 0, "jpeg", errors.New("a JPEG whose size is not in its first bytes (damaged, or metadata too large)")
}
